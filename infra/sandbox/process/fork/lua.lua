-- The Lua fork server (../forkServer.ts; the loop is native: luafork.c says how), run as
-- `lua /fork/lua.lua`, as a lone run is `lua /build/program.lua`. `arg` is set to the lone run's
-- before luaunit loads (it keeps the table it finds, for LuaUnit.run's options); nothing else is
-- left in the globals. luaunit stays in package.loaded: the program's require returns it.
arg = { [-1] = 'lua', [0] = '/build/program.lua' }
require('luaunit')
package.loadlib('/fork/luafork.so', 'luaopen_luafork')().serve()
