/** The test cases and benchmark programs of `lua` (what each is for: ../fixtures.ts). */
import type { LanguageFixtures } from '../fixtures.js';

export const fixtures: LanguageFixtures<'lua'> = {
  language: 'lua',
  multiple: {
    id: 'lua',
    row: {
      prompt: '-- Add two numbers x and y\n--     >>> add(2, 3)\n--     5\n--     >>> add(5, 7)\n--     12\nlocal function add(x, y)\n',
      tests:
        "lu = require('luaunit')\n\nfunction test_humaneval()\nlocal candidate = add\n    lu.assertEquals(candidate(0, 1), 1)\n    lu.assertEquals(candidate(1, 0), 1)\n    lu.assertEquals(candidate(2, 3), 5)\n    lu.assertEquals(candidate(5, 7), 12)\n    lu.assertEquals(candidate(7, 5), 12)\nend\n\nos.exit(lu.LuaUnit.run())",
      stop: ['\nlocal', '\nfunction', '\n--', '\n\n'],
    },
    completions: {
      right: "    return x + y\nend\n\nlocal function junk() error('kept past a stop token') end\n",
      wrong: '    return x - y\nend\n',
      noncompiling: '    return x +\nend\n',
      // Writes outside its directory: the right sum only when that is refused.
      hostile:
        "    local f = io.open('/etc/explora-multiple-planted', 'w')\n    if f then f:write('x') f:close() return 0 end\n    return x + y\nend\n",
    },
    hostilePasses: true,
  },
  process: {
    statuses: {
      ok: "local function add(a, b) return a + b end\nlu = require('luaunit')\nfunction test_humaneval() lu.assertEquals(add(2, 3), 5) end\nos.exit(lu.LuaUnit.run())\n",
      wrong:
        "local function add(a, b) return a - b end\nlu = require('luaunit')\nfunction test_humaneval() lu.assertEquals(add(2, 3), 5) end\nos.exit(lu.LuaUnit.run())\n",
      broken: 'local function add(a, b) return a + end\n',
      hangs: 'while true do end\n',
    },
    hostile: ({ port, targets, outputMiB }) => ({
      loop: 'while true do end',
      spawnBomb: "while true do os.execute('/bin/sleep 100 &') end",
      memoryBomb: "local t = {}\nwhile true do t[#t + 1] = string.rep('x', 10 * 1024 * 1024) .. #t end",
      output: `local b = string.rep('x', 1 << 20)\nfor i = 1, ${outputMiB} do io.stdout:write(b) end`,
      // Lua has no sockets of its own: it tries through bash's /dev/tcp.
      network: `for _, p in ipairs({${port}, 7233, 8333}) do\n  local ok = os.execute('bash -c "exec 3<>/dev/tcp/127.0.0.1/' .. p .. '" 2>/dev/null')\n  print(p, ok and 'CONNECTED' or 'refused')\nend`,
      environment:
        "print((io.open('/proc/self/environ'):read('a'):gsub('%z', '\\n')))\nlocal f = io.open('/proc/1/environ')\nif f then print(f:read('a')) end",
      writeOutside: `for _, p in ipairs({${targets.map((t) => JSON.stringify(t)).join(', ')}}) do\n  local f = io.open(p, 'w')\n  if f then f:write('x') f:close() print('WROTE ' .. p) else print('refused ' .. p) end\nend`,
      daemon: "print('spawned ' .. io.popen('setsid /bin/sleep 30 > /dev/null 2>&1 & echo $!'):read('l'))",
    }),
    wellBehaved: "local lu = require('luaunit')\nfunction test_ok() lu.assertEquals(1 + 1, 2) end\nos.exit(lu.LuaUnit.run())",
    bench: {
      rows: [
        {
          name: 'HumanEval_23_strlen',
          prompt:
            "-- Return length of given string\n--     >>> strlen('')\n--     0\n--     >>> strlen('abc')\n--     3\nlocal function strlen(string)\n",
          completion: '    return #string\nend',
          tests:
            "lu = require('luaunit')\n\nfunction test_humaneval()\nlocal candidate = strlen\n    lu.assertEquals(candidate(''), 0)\n    lu.assertEquals(candidate('x'), 1)\n    lu.assertEquals(candidate('asdasnakj'), 9)\nend\n\nos.exit(lu.LuaUnit.run())",
        },
        {
          name: 'HumanEval_13_greatest_common_divisor',
          prompt:
            '-- Return a greatest common divisor of two integers a and b\n--     >>> greatest_common_divisor(3, 5)\n--     1\n--     >>> greatest_common_divisor(25, 15)\n--     5\nlocal function greatest_common_divisor(a, b)\n',
          completion: '    while b ~= 0 do a, b = b, a % b end\n    return a\nend',
          tests:
            "lu = require('luaunit')\n\nfunction test_humaneval()\nlocal candidate = greatest_common_divisor\n    lu.assertEquals(candidate(3, 7), 1)\n    lu.assertEquals(candidate(10, 15), 5)\n    lu.assertEquals(candidate(49, 14), 7)\n    lu.assertEquals(candidate(144, 60), 12)\nend\n\nos.exit(lu.LuaUnit.run())",
        },
        {
          name: 'HumanEval_30_get_positive',
          prompt:
            '-- Return only positive numbers in the table.\n--     >>> get_positive({-1, 2, -4, 5, 6})\n--     {2, 5, 6}\n--     >>> get_positive({5, 3, -5, 2, -3, 3, 9, 0, 123, 1, -10})\n--     {5, 3, 2, 3, 9, 123, 1}\nlocal function get_positive(l)\n',
          completion: '    local out = {}\n    for _, e in ipairs(l) do if e > 0 then table.insert(out, e) end end\n    return out\nend',
          tests:
            "lu = require('luaunit')\n\nfunction test_humaneval()\nlocal candidate = get_positive\n    lu.assertEquals(candidate({-1, -2, 4, 5, 6}), {4, 5, 6})\n    lu.assertEquals(candidate({5, 3, -5, 2, 3, 3, 9, 0, 123, 1, -10}), {5, 3, 2, 3, 3, 9, 123, 1})\n    lu.assertEquals(candidate({-1, -2}), {})\n    lu.assertEquals(candidate({}), {})\nend\n\nos.exit(lu.LuaUnit.run())",
        },
      ],
      distinct: (i) => `\n-- bench program ${i}\n`,
    },
  },
};
