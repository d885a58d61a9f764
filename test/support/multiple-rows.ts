/**
 * MultiPL-E rows for tests, in the exact shape MultiPL-E's dataset builder publishes
 * (`{name, language, prompt, doctests, original, prompt_terminology, tests, stop_tokens}`): its
 * HumanEval_53_add ("Add two numbers x and y") in each of the 19 languages, as MultiPL-E's own
 * translators make it (TRANSLATED below).
 * `addRow(language, n)` makes the task under the name HumanEval_<n>_add with `(task n)` in its
 * comment, so that several rows of one file differ.
 *
 * For each language, completions as a completion model would return them (running past the stop
 * tokens, which must cut them): right, wrong, one that does not compile, and a hostile one.
 */
import type { MultiplELanguageId } from '../../domain/families/multipl-e/index.js';
import { isProcessLanguageId } from '../../domain/languages/registry.js';
import { toolchainFor } from '../../infra/sandbox/toolchainRegistry.js';

export interface MultiplERowFixture {
  name: string;
  language: MultiplELanguageId;
  prompt: string;
  doctests: string;
  original: string;
  prompt_terminology: string;
  tests: string;
  stop_tokens: string[];
}

function row(language: MultiplELanguageId, n: number, prompt: string, tests: string, stop: string[]): MultiplERowFixture {
  return {
    name: `HumanEval_${n}_add`,
    language,
    prompt,
    doctests: 'transform',
    original: '../datasets/originals-with-cleaned-doctests/HumanEval_53_add.py',
    prompt_terminology: 'reworded',
    tests,
    stop_tokens: stop,
  };
}

/**
 * HumanEval_53_add as MultiPL-E's own translators write it, in every language
 * (dataset_builder/humaneval_to_<lang>.py run by prepare_prompts_json.py with
 * `--doctests transform --prompt-terminology reworded`; how in docs/datasets.md#multipl-e):
 * prompt, tests and stop tokens byte for byte.
 */
const TRANSLATED: Record<MultiplELanguageId, { prompt: string; tests: string; stop: string[] }> = {
  cpp: {
    prompt:
      '#include<assert.h>\n#include<bits/stdc++.h>\n// Add two numbers x and y\n// >>> add((2), (3))\n// (5)\n// >>> add((5), (7))\n// (12)\nlong add(long x, long y) {\n',
    tests:
      '}\nint main() {\n    auto candidate = add;\n    assert(candidate((0), (1)) == (1));\n    assert(candidate((1), (0)) == (1));\n    assert(candidate((2), (3)) == (5));\n    assert(candidate((5), (7)) == (12));\n    assert(candidate((7), (5)) == (12));\n}\n',
    stop: ['\n}'],
  },
  ts: {
    prompt: '//Add two numbers x and y\n// >>> add(2, 3)\n// 5\n// >>> add(5, 7)\n// 12\nfunction add(x: number, y: number): number {\n',
    tests:
      "declare var require: any;\nconst assert = require('node:assert');\n\n\nfunction test() {\n  let candidate = add;\n  assert.deepEqual(candidate(0, 1),1);\n  assert.deepEqual(candidate(1, 0),1);\n  assert.deepEqual(candidate(2, 3),5);\n  assert.deepEqual(candidate(5, 7),12);\n  assert.deepEqual(candidate(7, 5),12);\n}\n\ntest();",
    stop: ['\nfunction ', '\n/*', '\n//', '\nclass'],
  },
  js: {
    prompt: '//Add two numbers x and y\n// >>> add(2, 3)\n// 5\n// >>> add(5, 7)\n// 12\nfunction add(x, y){\n',
    tests:
      "const assert = require('node:assert');\n\n\nfunction test() {\n  let candidate = add;\n  assert.deepEqual(candidate(0, 1),1);\n  assert.deepEqual(candidate(1, 0),1);\n  assert.deepEqual(candidate(2, 3),5);\n  assert.deepEqual(candidate(5, 7),12);\n  assert.deepEqual(candidate(7, 5),12);\n}\n\ntest();",
    stop: ['\nfunction ', '\n/*', '\n//', '\nconsole.log'],
  },
  lua: {
    prompt: '-- Add two numbers x and y\n--     >>> add(2, 3)\n--     5\n--     >>> add(5, 7)\n--     12\nlocal function add(x, y)\n',
    tests:
      "lu = require('luaunit')\n\nfunction test_humaneval()\nlocal candidate = add\n    lu.assertEquals(candidate(0, 1), 1)\n    lu.assertEquals(candidate(1, 0), 1)\n    lu.assertEquals(candidate(2, 3), 5)\n    lu.assertEquals(candidate(5, 7), 12)\n    lu.assertEquals(candidate(7, 5), 12)\nend\n\nos.exit(lu.LuaUnit.run())",
    stop: ['\nlocal', '\nfunction', '\n--', '\n\n'],
  },
  rb: {
    prompt: '# Add two numbers x and y\n# >>> add.call(2, 3)\n# 5\n# >>> add.call(5, 7)\n# 12\ndef add(x, y)\n',
    tests:
      "require 'test/unit'\nclass TestHumanEval < Test::Unit::TestCase\n  def test_add\n    candidate = method(:add)\n    assert_equal(1, candidate.call(0, 1))\n    assert_equal(1, candidate.call(1, 0))\n    assert_equal(5, candidate.call(2, 3))\n    assert_equal(12, candidate.call(5, 7))\n    assert_equal(12, candidate.call(7, 5))\n  end\nend\n",
    stop: ['\nclass', '\ndef', '\n#', '\n\n'],
  },
  py: {
    prompt:
      'def add(x: int, y: int) -> int:\n    """Add two numbers x and y\n    >>> add(2, 3)\n    5\n    >>> add(5, 7)\n    12\n    """\n',
    tests:
      'def check(candidate):\n    assert candidate(0, 1) == 1\n    assert candidate(1, 0) == 1\n    assert candidate(2, 3) == 5\n    assert candidate(5, 7) == 12\n    assert candidate(7, 5) == 12\n\ndef test_check():\n    check(add)\n\ntest_check()\n',
    stop: ['\ndef', '\n#', '\nif', '\nclass'],
  },
  rkt: {
    prompt:
      '#lang racket\n\n;; Add two numbers x and y\n;;     >>> (add 2 3)\n;;     5\n;;     >>> (add 5 7)\n;;     12\n(define (add x y)\n',
    tests:
      '(require rackunit)\n\n(define (test-humaneval) \n\n  (let (( candidate add))\n    (check-within (candidate 0 1) 1 0.001)\n    (check-within (candidate 1 0) 1 0.001)\n    (check-within (candidate 2 3) 5 0.001)\n    (check-within (candidate 5 7) 12 0.001)\n    (check-within (candidate 7 5) 12 0.001)\n))\n\n(test-humaneval)',
    stop: ['\n(define ', '\n#|', '\n;', '\n('],
  },
  d: {
    prompt:
      'import std.math;\n/*\nAdd two numbers x and y\n    >>> add(2L, 3L)\n    5L\n    >>> add(5L, 7L)\n    12L\n    \n*/\nlong add(long x, long y) \n',
    tests:
      'unittest\n{\n    alias candidate = add;\n\n    assert(candidate(0L, 1L) == 1L);\n    assert(candidate(1L, 0L) == 1L);\n    assert(candidate(2L, 3L) == 5L);\n    assert(candidate(5L, 7L) == 12L);\n    assert(candidate(7L, 5L) == 12L);\n}\nvoid main(){}',
    stop: ['\n\n', '\nvoid', '\nbool', '\nint'],
  },
  scala: {
    prompt:
      'import scala.math._\nimport scala.collection.mutable._\nobject Problem {\n    // Add two numbers x and y\n    // >>> add((2l), (3l))\n    // (5l)\n    // >>> add((5l), (7l))\n    // (12l)\n    def add(x : Long, y : Long) : Long = {\n',
    tests:
      '    }\n    def main(args: Array[String]) = {\n    assert(add((0l), (1l)) == (1l));\n    assert(add((1l), (0l)) == (1l));\n    assert(add((2l), (3l)) == (5l));\n    assert(add((5l), (7l)) == (12l));\n    assert(add((7l), (5l)) == (12l));\n    }\n\n}\n',
    stop: ['\n    }\n'],
  },
  cs: {
    prompt:
      'using System;\nusing System.Numerics;\nusing System.Diagnostics;\nusing System.Collections.Generic;\nusing System.Linq;\nusing System.Text;\nusing System.Security.Cryptography;\nclass Problem {\n    // Add two numbers x and y\n    // >>> Add((2L), (3L))\n    // (5L)\n    // >>> Add((5L), (7L))\n    // (12L)\n    public static long Add(long x, long y) {\n',
    tests:
      '    }\n    public static void Main(string[] args) {\n    Debug.Assert(Add((0L), (1L)) == (1L));\n    Debug.Assert(Add((1L), (0L)) == (1L));\n    Debug.Assert(Add((2L), (3L)) == (5L));\n    Debug.Assert(Add((5L), (7L)) == (12L));\n    Debug.Assert(Add((7L), (5L)) == (12L));\n    }\n\n}\n',
    stop: ['\n    }\n'],
  },
  'go_test.go': {
    prompt:
      'package add_test\n\nimport (\n    "testing"\n    "fmt"\n)\n\n// Add two numbers x and y\n// >>> add(2, 3)\n// 5\n// >>> add(5, 7)\n// 12\nfunc add(x int, y int) int {\n',
    tests:
      'func TestAdd(t *testing.T) {\n  candidate := add\n\ttype test struct {\n\t\tactual   interface{}\n\t\texpected interface{}\n\t}\n   tests := []test{\n     { actual: candidate(0, 1), expected: 1 },\n     { actual: candidate(1, 0), expected: 1 },\n     { actual: candidate(2, 3), expected: 5 },\n     { actual: candidate(5, 7), expected: 12 },\n     { actual: candidate(7, 5), expected: 12 },\n   }\n\n\tfor i, tc := range tests {\n\t\tt.Run(fmt.Sprintf("test num % d", i), func(t *testing.T) {\n\t\t\tif fmt.Sprintf("%v", tc.actual) != fmt.Sprintf("%v", tc.expected) {\n\t\t\t\tt.Errorf("expected \'%s\', got \'%s\'", tc.expected, tc.actual)\n\t\t\t}\n\t\t})\n\t}\n}\n',
    stop: ['\nfunc', 'struct', '\n// '],
  },
  rs: {
    prompt: '/// Add two numbers x and y\n/// >>> add(2, 3)\n/// 5\n/// >>> add(5, 7)\n/// 12\nfn add(x: isize, y: isize) -> isize {\n',
    tests:
      '}\n\nfn main() {\n    let candidate = add;\n    assert_eq!(candidate(0, 1), 1);\n    assert_eq!(candidate(1, 0), 1);\n    assert_eq!(candidate(2, 3), 5);\n    assert_eq!(candidate(5, 7), 12);\n    assert_eq!(candidate(7, 5), 12);\n}\n',
    stop: ['\n}'],
  },
  java: {
    prompt:
      'import java.util.*;\nimport java.lang.reflect.*;\nimport org.javatuples.*;\nimport java.security.*;\nimport java.math.*;\nimport java.io.*;\nimport java.util.stream.*;\nclass Problem {\n    // Add two numbers x and y\n    // >>> add((2l), (3l))\n    // (5l)\n    // >>> add((5l), (7l))\n    // (12l)\n    public static long add(long x, long y) {\n',
    tests:
      '    }\n    public static void main(String[] args) {\n    assert(add((0l), (1l)) == (1l));\n    assert(add((1l), (0l)) == (1l));\n    assert(add((2l), (3l)) == (5l));\n    assert(add((5l), (7l)) == (12l));\n    assert(add((7l), (5l)) == (12l));\n    }\n\n}\n',
    stop: ['\n    }\n'],
  },
  php: {
    prompt: '<?php\n// Add two numbers x and y\n// >>> add(2, 3)\n// 5\n// >>> add(5, 7)\n// 12\nfunction add($x, $y) {\n',
    tests:
      'function candidate(...$args) {\n    return add(...$args);\n}\n\nfunction test(): void {\n    if (candidate(0, 1) !== 1) { throw new Exception("Test failed!"); }\n    if (candidate(1, 0) !== 1) { throw new Exception("Test failed!"); }\n    if (candidate(2, 3) !== 5) { throw new Exception("Test failed!"); }\n    if (candidate(5, 7) !== 12) { throw new Exception("Test failed!"); }\n    if (candidate(7, 5) !== 12) { throw new Exception("Test failed!"); }\n}\n\ntest();',
    stop: ['\nfunction', '\n?>', '\n//', '\n#'],
  },
  pl: {
    prompt: '# Add two numbers x and y\n# >>> add(2, 3)\n# 5\n# >>> add(5, 7)\n# 12\nsub add {\n    my($x, $y) = @_;\n',
    tests:
      'use Test::Deep;\n\n\nsub testhumaneval {\n    my $candidate = \\&add;\n        if(eq_deeply($candidate->(0, 1),1)) {\n        print "ok!" }else{\n        exit 1;\n        }\n        if(eq_deeply($candidate->(1, 0),1)) {\n        print "ok!" }else{\n        exit 1;\n        }\n        if(eq_deeply($candidate->(2, 3),5)) {\n        print "ok!" }else{\n        exit 1;\n        }\n        if(eq_deeply($candidate->(5, 7),12)) {\n        print "ok!" }else{\n        exit 1;\n        }\n        if(eq_deeply($candidate->(7, 5),12)) {\n        print "ok!" }else{\n        exit 1;\n        }\n}\n\ntesthumaneval();',
    stop: ['\nsub', '\n#', '\n\n'],
  },
  sh: {
    prompt:
      '#!/bin/bash\n# Add two numbers x and y\n# >>> $(add "2" "3")\n# "5"\n# >>> $(add "5" "7")\n# "12"\n#\n# $1 is an integer\n# $2 is an integer\nadd() {\n',
    tests:
      '}\n\ncandidate() {\n    add "$@"\n}\n\nset -e\nrun_test() {\n    [[ $(candidate "0" "1") = "1" ]]\n    [[ $(candidate "1" "0") = "1" ]]\n    [[ $(candidate "2" "3") = "5" ]]\n    [[ $(candidate "5" "7") = "12" ]]\n    [[ $(candidate "7" "5") = "12" ]]\n}\n\nrun_test',
    stop: ['\n}'],
  },
  r: {
    prompt: '# Add two numbers x and y\n#     >>> add(2, 3)\n#     5\n#     >>> add(5, 7)\n#     12\nadd <- function(x, y) {',
    tests:
      'test_humaneval <- function() {\n    candidate <- add\n    stopifnot(isTRUE(all.equal(candidate(0, 1), 1)))\n    stopifnot(isTRUE(all.equal(candidate(1, 0), 1)))\n    stopifnot(isTRUE(all.equal(candidate(2, 3), 5)))\n    stopifnot(isTRUE(all.equal(candidate(5, 7), 12)))\n    stopifnot(isTRUE(all.equal(candidate(7, 5), 12)))\n}\ntest_humaneval()',
    stop: ['\n#', '\n```'],
  },
  jl: {
    prompt:
      '"""Add two numbers x and y\n    >>> add(2, 3)\n    5\n    >>> add(5, 7)\n    12\n    """\nfunction add(x::Int64, y::Int64)::Int64 \n',
    tests:
      'using Test\n\n@testset begin\n\ncandidate = add;\n\t@test(candidate(0, 1) == 1)\n\t@test(candidate(1, 0) == 1)\n\t@test(candidate(2, 3) == 5)\n\t@test(candidate(5, 7) == 12)\n\t@test(candidate(7, 5) == 12)\nend\n',
    stop: ['\nfunction', '\nmacro', '\n\n'],
  },
  swift: {
    prompt:
      '\n/// Add two numbers x and y\n/// >>> add(x: 2, y: 3)\n/// 5\n/// >>> add(x: 5, y: 7)\n/// 12\nfunc add(x: Int, y: Int) -> Int {\n',
    tests:
      '}\n\n\nfunc ==(left: [(Int, Int)], right: [(Int, Int)]) -> Bool {\n    if left.count != right.count {\n        return false\n    }\n    for (l, r) in zip(left, right) {\n        if l != r {\n            return false\n        }\n    }\n    return true\n}\n            \nassert(add(x: 0, y: 1) == 1)\nassert(add(x: 1, y: 0) == 1)\nassert(add(x: 2, y: 3) == 5)\nassert(add(x: 5, y: 7) == 12)\nassert(add(x: 7, y: 5) == 12)',
    stop: ['\n}'],
  },
};

/**
 * Rows several of one file: each task is HumanEval_<n>_add, and (n != 53) the translator's prompt
 * gets ` (task n)` after its first line's text, so that every row's prompt differs; n = 53 is the
 * translator's row as it is.
 */
export function addRow(language: MultiplELanguageId, n = 53): MultiplERowFixture {
  const made = TRANSLATED[language];
  const prompt = n === 53 ? made.prompt : made.prompt.replace('Add two numbers x and y', `Add two numbers x and y (task ${n})`);
  return row(language, n, prompt, made.tests, made.stop);
}

export type CompletionKind = 'right' | 'wrong' | 'noncompiling' | 'hostile';

/**
 * A completion of each kind, as a model returns it: the body, then text past a stop token that
 * would break the program if it were kept. `hostile` is a different attack per language; each
 * passes only if the sandbox contained it (`hostilePasses`) or must time out / run out of memory.
 */
export const COMPLETIONS: Record<MultiplELanguageId, Record<CompletionKind, string>> = {
  js: {
    right: '  return x + y;\n}\n\nfunction junk() { throw new Error("kept past a stop token"); }\n',
    wrong: '  return x - y;\n}\n',
    noncompiling: '  return x +;\n}\n',
    hostile: '  while (true) {}\n}\n',
  },
  ts: {
    right: '  return x + y;\n}\n\nfunction junk(): number { return "kept past a stop token"; }\n',
    wrong: '  return x - y;\n}\n',
    noncompiling: '  return "x" + y;\n}\n',
    hostile:
      "  const cp = require('child_process');\n  for (;;) { try { cp.spawn('/bin/sleep', ['100']).on('error', () => {}); } catch (e) {} }\n}\n",
  },
  'go_test.go': {
    right: '\treturn x + y\n}\n\nfunc junk() int { return "kept past a stop token" }\n',
    wrong: '\treturn x - y\n}\n',
    noncompiling: '\treturn x + "y"\n}\n',
    hostile:
      '\tvar s [][]byte\n\tfor {\n\t\tb := make([]byte, 10<<20)\n\t\tfor i := range b {\n\t\t\tb[i] = 1\n\t\t}\n\t\ts = append(s, b)\n\t}\n}\n',
  },
  rs: {
    right: '    x + y\n}\n\nfn junk() -> isize { "kept past a stop token" }\n',
    wrong: '    x - y\n}\n',
    noncompiling: '    x + "y"\n}\n',
    // Connects to Temporal's port: returns the right sum only when the connection is refused.
    hostile: '    match std::net::TcpStream::connect("127.0.0.1:7233") { Ok(_) => 0, Err(_) => x + y }\n}\n',
  },
  java: {
    right: '        return x + y;\n    }\n    public static long junk() { return "kept past a stop token"; }\n',
    wrong: '        return x - y;\n    }\n',
    noncompiling: '        return x + "y";\n    }\n',
    // Writes outside its directory: the right sum only when that is refused.
    hostile:
      '        try { java.nio.file.Files.write(java.nio.file.Paths.get("/etc/explora-multiple-planted"), new byte[]{1}); return 0; } catch (Exception e) { return x + y; }\n    }\n',
  },
  cpp: {
    right: '    return x + y;\n}\nint junk() { return "kept past a stop token"; }\n',
    wrong: '    return x - y;\n}\n',
    noncompiling: '    return x + "y" + nope;\n}\n',
    // Leaves a daemon behind (a new session, sleeping): it must die with the program.
    hostile: '    std::system("setsid sleep 31 > /dev/null 2>&1 &");\n    return x + y;\n}\n',
  },
  lua: {
    right: "    return x + y\nend\n\nlocal function junk() error('kept past a stop token') end\n",
    wrong: '    return x - y\nend\n',
    noncompiling: '    return x +\nend\n',
    // Writes outside its directory: the right sum only when that is refused.
    hostile:
      "    local f = io.open('/etc/explora-multiple-planted', 'w')\n    if f then f:write('x') f:close() return 0 end\n    return x + y\nend\n",
  },
  rb: {
    right: "  x + y\nend\n\ndef junk\n  raise 'kept past a stop token'\nend\n",
    wrong: '  x - y\nend\n',
    noncompiling: '  x +\nend\n',
    // Connects to Temporal's port: the right sum only when the connection is refused.
    hostile: "  require 'socket'\n  begin\n    TCPSocket.new('127.0.0.1', 7233)\n    0\n  rescue StandardError\n    x + y\n  end\nend\n",
  },
  php: {
    right: '    return $x + $y;\n}\n\nfunction junk() { throw new Exception("kept past a stop token"); }\n',
    wrong: '    return $x - $y;\n}\n',
    noncompiling: '    return $x +;\n}\n',
    // Leaves a daemon behind (a new session, sleeping): it must die with the program.
    hostile: "    exec('setsid sleep 31 > /dev/null 2>&1 &');\n    return $x + $y;\n}\n",
  },
  pl: {
    right: "    return $x + $y;\n}\n\nsub junk { die 'kept past a stop token'; }\n",
    wrong: '    return $x - $y;\n}\n',
    noncompiling: '    return $x +;\n}\n',
    // Reads the worker's environment: the right sum only when it sees none of it.
    hostile: '    return (grep { /EXPLORA|TEMPORAL/ } keys %ENV) ? 0 : $x + $y;\n}\n',
  },
  sh: {
    right: "    echo $(( $1 + $2 ))\n}\n\njunk() { echo 'kept past a stop token'; }\n",
    wrong: '    echo $(( $1 - $2 ))\n}\n',
    noncompiling: '    if (( $1 )); then\n}\n',
    // Connects to Temporal's port (bash's /dev/tcp): the right sum only when the connection is refused.
    hostile: '    if (exec 3<>/dev/tcp/127.0.0.1/7233) 2>/dev/null; then echo 0; else echo $(( $1 + $2 )); fi\n}\n',
  },
  r: {
    right: "\n    x + y\n}\n# kept past a stop token\nstop('kept past a stop token')\n",
    wrong: '\n    x - y\n}\n',
    noncompiling: '\n    x +\n}\n',
    // Writes outside its directory: the right sum only when that is refused.
    hostile:
      "\n    ok <- tryCatch({ writeLines('x', '/etc/explora-multiple-planted'); TRUE }, error = function(e) FALSE, warning = function(w) FALSE)\n    if (ok) 0 else x + y\n}\n",
  },
  rkt: {
    right: '  (+ x y))\n\n(define (junk) (error "kept past a stop token"))\n',
    wrong: '  (- x y))\n',
    noncompiling: '  (+ x y)\n',
    // Connects to Temporal's port: the right sum only when the connection is refused.
    hostile: '  (with-handlers ([exn:fail? (lambda (e) (+ x y))]) (tcp-connect "127.0.0.1" 7233) 0))\n',
  },
  d: {
    right: '{\n    return x + y;\n}\n\nint junk() { return "kept past a stop token"; }\n',
    wrong: '{\n    return x - y;\n}\n',
    noncompiling: '{\n    return x + "y";\n}\n',
    // Leaves a daemon behind (a new session, sleeping): it must die with the program.
    hostile: '{\n    import std.process : spawnShell;\n    spawnShell("setsid sleep 31 > /dev/null 2>&1 &");\n    return x + y;\n}\n',
  },
  jl: {
    right: '    return x + y\nend\n\nfunction junk() error("kept past a stop token") end\n',
    wrong: '    return x - y\nend\n',
    noncompiling: '    return x +\nend\n',
    // Writes outside its directory: the right sum only when that is refused.
    hostile:
      '    try\n        write("/etc/explora-multiple-planted", "x")\n        return 0\n    catch\n        return x + y\n    end\nend\n',
  },
  swift: {
    right: '    return x + y\n}\n\nfunc junk() -> Int { return "kept past a stop token" }\n',
    wrong: '    return x - y\n}\n',
    noncompiling: '    return x + "y"\n}\n',
    hostile: '    while true {}\n}\n',
  },
  scala: {
    right: '        x + y\n    }\n    def junk() : Long = "kept past a stop token"\n',
    wrong: '        x - y\n    }\n',
    noncompiling: '        x + "y"\n    }\n',
    // Reads the worker's environment: the right sum only when it sees none of it.
    hostile: '        if (sys.env.keys.exists(k => k.contains("EXPLORA") || k.contains("TEMPORAL"))) 0l else x + y\n    }\n',
  },
  cs: {
    right: '        return x + y;\n    }\n    public static long Junk() { return "kept past a stop token"; }\n',
    wrong: '        return x - y;\n    }\n',
    noncompiling: '        return x + "y";\n    }\n',
    // Connects to Temporal's port (Mono's TcpClient(host, port) swallows a refusal; Connect throws it):
    // the right sum only when the connection is refused.
    hostile:
      '        try { new System.Net.Sockets.TcpClient().Connect("127.0.0.1", 7233); return 0; } catch (Exception) { return x + y; }\n    }\n',
  },
  py: {
    right: '    return x + y\n\ndef junk():\n    raise AssertionError("kept past a stop token")\n',
    wrong: '    return x - y\n',
    noncompiling: '    return x +\n',
    // Reads the worker's environment: the right sum only when it sees none of it.
    hostile: "    import os\n    return x + y if not any('EXPLORA' in k or 'TEMPORAL' in k for k in os.environ) else 0\n",
  },
};

/** Whether the language's hostile completion passes once contained (else it must time out or run out of memory). */
export const HOSTILE_PASSES: Record<MultiplELanguageId, boolean> = {
  js: false,
  ts: false,
  'go_test.go': false,
  rs: true,
  java: true,
  cpp: true,
  lua: true,
  rb: true,
  php: true,
  pl: true,
  sh: true,
  r: true,
  rkt: true,
  d: true,
  jl: true,
  swift: false,
  scala: true,
  cs: true,
  py: true,
};

export function jsonl(rows: readonly object[]): string {
  return rows.map((r) => JSON.stringify(r) + '\n').join('');
}

/**
 * Languages declared whose toolchain this project cannot install from the registries it reaches
 * (Julia and Swift: not in Debian bookworm). The tests run every other language and fail when one
 * of those cannot run here; these two are run where installed, else their refusal is tested.
 */
export const MAY_BE_MISSING: readonly MultiplELanguageId[] = ['jl', 'swift'];

/** Whether the language's toolchain is there (py's is the Python sandbox, always). */
export async function runnableHere(language: MultiplELanguageId): Promise<boolean> {
  return !isProcessLanguageId(language) || (await toolchainFor(language).check()).ok;
}

/** The languages of `languages` whose toolchains are there, checked side by side. */
export async function runnableOf<L extends MultiplELanguageId>(languages: readonly L[]): Promise<L[]> {
  const here = await Promise.all(languages.map(runnableHere));
  return languages.filter((_, k) => here[k]);
}
