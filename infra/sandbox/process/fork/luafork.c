/*
 * The Lua fork server's native part (fork/lua.lua, run by the `lua` binary as a lone program is,
 * loads luaunit and this module, then calls it). Debian 12's lua-posix is built for Lua 5.1-5.3,
 * not 5.4: the loop is native, forkserve.h's (shared with rfork.c). It returns only in a child,
 * set up as forkserve.h says, which then runs /build/program.lua as lua.c's main does for
 * `lua /build/program.lua`: loaded by luaL_loadfile (chunk name "@/build/program.lua"), called
 * with arg's entries as its `...` under a message handler that appends the stack traceback, an
 * error written to stderr as "lua: <message>", then the state closed (finalizers run) and exit 0,
 * or 1 after an error; os.exit exits as it would there. The program runs on a fresh coroutine
 * whose first frame is a C function, as pmain is a lone run's: its tracebacks end with
 * "[C]: in ?" and hold no frame of the server's.
 * What differs from a lone run: the string hash seed is the server's (pairs' order over the same
 * keys is the same for every program of one server; a lone run draws it per run), and
 * coroutine.running() at the top level names a thread that is not the main one; math.random is
 * seeded per child here, as lua draws a seed per run. A program that names EXPORT_ASSERT_TO_GLOBALS
 * (read by luaunit when it loads, here before the program) is answered "alone".
 */
#include "forkserve.h"

#include <dlfcn.h>
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#define PROGRAM "/build/program.lua"

/* The screen: a program that sets what luaunit reads at load, which it has done in the server. */
static int must_run_alone(void) {
  FILE *f = fopen(PROGRAM, "rb");
  if (!f) return 0;
  static char text[1 << 20];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = 0;
  return n == sizeof text - 1 || strstr(text, "EXPORT_ASSERT_TO_GLOBALS") != NULL;
}

/* As lua's: "lua: " and the message on stderr (which lua_writestringerror flushes). */
static void report(lua_State *L, int status) {
  if (status == LUA_OK) return;
  const char *message = lua_tostring(L, -1);
  lua_writestringerror("%s: ", "lua");
  lua_writestringerror("%s\n", message);
  lua_pop(L, 1);
}

/* As lua's message handler: a non-string error object described (or its __tostring), then the traceback. */
static int message_handler(lua_State *L) {
  const char *message = lua_tostring(L, 1);
  if (message == NULL) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) return 1;
    message = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
  luaL_traceback(L, L, message, 1);
  return 1;
}

/* The lone run's pmain, from its script on: returns true when the program ran to its end. */
static int program_main(lua_State *L) {
  luaL_checkversion(L);
  int status = luaL_loadfile(L, PROGRAM);
  if (status == LUA_OK) {
    if (lua_getglobal(L, "arg") != LUA_TTABLE) luaL_error(L, "'arg' is not a table");
    int n = (int)luaL_len(L, -1);
    luaL_checkstack(L, n + 3, "too many arguments to script");
    for (int i = 1; i <= n; i++) lua_rawgeti(L, -i, i);
    lua_remove(L, -n - 1);
    int base = lua_gettop(L) - n;
    lua_pushcfunction(L, message_handler);
    lua_insert(L, base);
    status = lua_pcall(L, n, LUA_MULTRET, base);
    lua_remove(L, base);
  }
  if (status != LUA_OK) {
    report(L, status);
    return 0;
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* math.random seeded afresh, as a lone lua seeds it from the time and its state's address. */
static void reseed(lua_State *L) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  if (lua_getglobal(L, "math") == LUA_TTABLE && lua_getfield(L, -1, "randomseed") == LUA_TFUNCTION) {
    lua_pushinteger(L, (lua_Integer)t.tv_sec ^ ((lua_Integer)getpid() << 32));
    lua_pushinteger(L, (lua_Integer)t.tv_nsec);
    lua_call(L, 2, 0);
    lua_pop(L, 1);
  } else {
    lua_pop(L, 2);
  }
}

/* luafork.serve(): the server's loop; in each child, the program, then the child's exit. */
static int serve(lua_State *L) {
  fork_require_sandbox("Lua");
  fork_serve(must_run_alone);
  reseed(L);
  lua_State *program = lua_newthread(L);
  lua_pushcfunction(program, program_main);
  /* lua.c calls pmain with argc and argv: the same two slots taken, the program's stack overflows at the same depth. */
  lua_pushinteger(program, 2);
  lua_pushlightuserdata(program, NULL);
  int status = lua_pcall(program, 2, 1, 0);
  int ran = lua_toboolean(program, -1);
  report(program, status);
  lua_close(L);
  exit(ran && status == LUA_OK ? EXIT_SUCCESS : EXIT_FAILURE);
}

int luaopen_luafork(lua_State *L) {
  /* Kept loaded for good: the child's lua_close unloads the C modules (dlclose), this one among them, before serve's exit. */
  Dl_info self;
  if (!dladdr((void *)luaopen_luafork, &self) || !dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE))
    return luaL_error(L, "luafork: cannot pin its library");
  lua_newtable(L);
  lua_pushcfunction(L, serve);
  lua_setfield(L, -2, "serve");
  return 1;
}
