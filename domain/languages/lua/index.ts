/** Lua, MultiPL-E's `lua`: interpreted by `lua`, the tests a luaunit suite (`os.exit(lu.LuaUnit.run())`). */
import { multiplELanguage } from '../multiple.js';

export const lua = multiplELanguage({
  id: 'lua',
  name: 'Lua',
  extension: 'lua',
  stopWords: ['\nlocal', '\nfunction', '\n--', '\n\n'],
  fenceTags: ['lua'],
  compiled: false,
});
