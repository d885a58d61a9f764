/**
 * Lua's fork server (forkServer.ts): a warm `lua` running fork/lua.lua, with luaunit
 * loaded, which calls fork/luafork.c's module (the server loop; Debian 12's lua-posix does not
 * support Lua 5.4) whose child runs the program as `lua /build/program.lua` would. Without a
 * compiler or Lua 5.4's headers (Debian: liblua5.4-dev) Lua stays in exec mode (execForkServer).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ForkServerSpec } from './contract.js';
import { forkLibrary } from './forkLibrary.js';
import { execForkServer } from './forkServer.js';
import { WARM_TOOLS_DIR } from './toolchains/common.js';

const SCRIPT = fileURLToPath(new URL('./fork/lua.lua', import.meta.url));
/** Where Debian's liblua5.4-dev puts Lua 5.4's headers. */
const LUA_HEADERS = '/usr/include/lua5.4';

/** The module's host path, built on first need; null when it cannot be built here. */
export function luaForkLibrary(dir = join(WARM_TOOLS_DIR, 'fork')): string | null {
  return forkLibrary('luafork.c', [`-I${LUA_HEADERS}`], dir);
}

/**
 * Lua's server: `lua /fork/lua.lua`, as a lone run is `lua /build/program.lua` (the same
 * interpreter start: libraries, generational GC), with its requests moved to fd 3 and stdin /dev/null;
 * exec mode when the module could not be built (`library` null).
 */
export function luaForkServer(library = luaForkLibrary()): ForkServerSpec {
  if (!library) return execForkServer();
  return {
    script: SCRIPT,
    argv: (script) => ['sh', '-c', 'exec lua "$0" 3<&0 0</dev/null', script],
    mounts: [{ host: library, sandbox: '/fork/luafork.so' }],
  };
}
