/**
 * Fork servers (infra/sandbox/process/forkServer.ts, the default): on the real sandbox and the real
 * interpreters, every program of a varied set (passes, failed assertions, runtime and syntax
 * errors, output, exit calls, a loop, a memory bomb, a spawn bomb, a daemon, output past the cap)
 * runs twice, forked by its slot's warm interpreter and alone, and must end the same way (status,
 * exception, stdout, stderr, exit code, signal; digits aside: pids and test/unit's timings differ
 * from run to run). Then what one forked program does must not reach a later one: its files in
 * /tmp, its processes, an attempt on the server; and a child runs as the slot's uid without
 * capabilities. PHP forks inside a warm php (fork/php.php), as Ruby and Perl do, and R and Lua
 * inside a warm Rscript and lua through a native loop (fork/rfork.c, fork/luafork.c); sh and
 * js exec their lone command from a warm sandbox (exec mode), and pass the same set, as do D's
 * binaries and C#'s mono (exec mode; D's batched binaries too: d-batch.e2e.test.ts). A server that
 * dies while its program runs leaves that program to its lone run, with the lone outcome. Racket's
 * warm server runs programs inside itself, not forked: rkt-warm.e2e.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../domain/execution/types.js';
import type { ProcessLanguageId } from '../../domain/languages/registry.js';
import { ProcessExecutor } from '../../infra/sandbox/process/processExecutor.js';
import { toolchainFor } from '../../infra/sandbox/toolchainRegistry.js';
import { findBwrap, isolationArgs, readOnlyMountArgs, SANDBOX_PATH } from '../../infra/sandbox/bwrapPolicy.js';

const LIMITS = { timeoutMs: 2_000, maxProcesses: 16, maxOutputBytes: 4096, memoryBytes: 256 * 1024 * 1024 };
/**
 * Interpreters whose start alone can take seconds on a loaded machine (Rscript, node; ruby
 * with test/unit, whose lone run of a failing test passed 2 s beside the hostile suite): more wall
 * time, same outcomes.
 */
const SLOW_START: readonly ProcessLanguageId[] = ['r', 'js', 'rb'];
/** Languages whose programs are compiled before their run (exec mode serves the run only). */
const COMPILED: readonly ProcessLanguageId[] = ['d', 'cs'];
const limitsFor = (language: ProcessLanguageId) => (SLOW_START.includes(language) ? { ...LIMITS, timeoutMs: 10_000 } : LIMITS);
/**
 * A memory bomb ends at its memory limit and 8 MiB past the output cap end when written, not at
 * the wall time: given ample time, so that a loaded machine does not turn one of them into a
 * time-out on one side only (sh's `head | tr` of 8 MiB once took over 2 s alone in CI).
 */
const ENDS_BY_ITSELF_LIMITS = { ...LIMITS, timeoutMs: 60_000 };
/**
 * The cases that run into the wall time (or, the daemon, may wait for it); every other one ends by
 * itself and gets ample time too: Perl's lone run of a failing Test::Deep test once passed 2 s in
 * CI, loaded, and ended as a time-out on that side only.
 */
const MEETS_ITS_TIME_LIMIT: readonly string[] = ['loop', 'spawnBomb', 'daemon'] satisfies Case[];
/**
 * Cases that print nothing and run until killed, however late their interpreter starts (the loop;
 * Ruby's and node's spawn bombs swallow their failed spawns, R's prints them): the outcome is the
 * same both ways after a second. They had the language's limit, 10 s for the slow starters, and
 * spinning took most of the file's CPU.
 */
const SILENT_UNTIL_KILLED = (language: ProcessLanguageId, id: string) =>
  id === 'loop' || (id === 'spawnBomb' && ['rb', 'js'].includes(language));
const SILENT_LIMITS = { ...LIMITS, timeoutMs: 1_000 };
const requestFor = (language: ProcessLanguageId, id: string, program: string) => ({
  id,
  program,
  ...(SILENT_UNTIL_KILLED(language, id)
    ? { limits: SILENT_LIMITS }
    : MEETS_ITS_TIME_LIMIT.includes(id)
      ? {}
      : { limits: ENDS_BY_ITSELF_LIMITS }),
});

type Case =
  | 'passes'
  | 'fails'
  | 'raises'
  | 'syntax'
  | 'output'
  | 'exitZero'
  | 'exitThree'
  | 'loop'
  | 'memoryBomb'
  | 'spawnBomb'
  | 'daemon'
  | 'pastCap'
  | 'killsParent'
  | 'ownProc'
  | 'ownKind';

const RB_TEST = (assertion: string) =>
  `require 'test/unit'\n\nclass TestHumanEval < Test::Unit::TestCase\n  def test_candidate\n    ${assertion}\n  end\nend\n`;

/** ownKind: a failure of the language's own kind (Ruby: a stack overflow; Perl: strict's compile error). */
const PROGRAMS: Partial<Record<ProcessLanguageId, Record<Case, string>>> = {
  rb: {
    passes: `def add(a, b)\n  a + b\nend\n${RB_TEST('assert_equal(3, add(1, 2))')}`,
    fails: `def add(a, b)\n  a - b\nend\n${RB_TEST('assert_equal(3, add(1, 2))')}`,
    raises: `def f(x)\n  x.foo\nend\n${RB_TEST('assert_equal(1, f(nil))')}`,
    syntax: 'def f(x\n  x +\nend\n',
    output: "puts 'hello'\n$stderr.puts 'to stderr'\nprint [1, 2].inspect\n",
    exitZero: "puts 'bye'\nexit 0\n",
    // Its own /proc/self: a child that changed uid is dumpable again, as a program exec'd as the uid is.
    ownProc:
      "begin\n  File.read('/proc/self/environ')\n  puts 'environ readable'\nrescue SystemCallError => e\n  puts \"environ: #{e.class}\"\nend\n",
    exitThree: "warn 'leaving'\nexit 3\n",
    loop: 'loop {}',
    memoryBomb: "a = []\nloop { a << 'x' * (10 << 20) }",
    spawnBomb: "loop do\n  begin\n    Process.spawn('/bin/sleep', '100')\n  rescue StandardError\n  end\nend",
    daemon: "pid = Process.spawn('/usr/bin/setsid', '/bin/sleep', '30')\nputs \"spawned #{pid}\"",
    pastCap: "b = 'x' * (1 << 20)\n8.times { $stdout.write(b) }",
    killsParent: 'Process.kill(:KILL, Process.ppid)',
    ownKind: 'def f(n)\n  f(n + 1) + 1\nend\nf(0)\n',
  },
  pl: {
    passes: `use Test::Deep;\nsub add { my ($a, $b) = @_; return $a + $b; }\nsub testhumaneval {\n    my $candidate = \\&add;\n    if (eq_deeply($candidate->(1, 2), 3)) {\n    } else {\n        exit 1;\n    }\n}\ntesthumaneval();\n`,
    fails: `use Test::Deep;\nsub add { my ($a, $b) = @_; return $a - $b; }\nif (eq_deeply(add(1, 2), 3)) { } else { exit 1; }\n`,
    raises: 'sub f { die "boom" }\nf();\n',
    syntax: 'sub f {\n  my $x = ;\n}\n',
    output: 'print "hello\\n";\nprint STDERR "to stderr\\n";\nwarn "a warning";\n',
    exitZero: 'print "bye\\n";\nexit 0;\n',
    // Its own /proc/self: a child that changed uid is dumpable again, as a program exec'd as the uid is.
    ownProc: 'print(open(my $f, \'<\', \'/proc/self/environ\') ? "environ readable\\n" : "environ: $!\\n");\n',
    exitThree: 'exit 3;\n',
    loop: '1 while 1;',
    memoryBomb: "my @a;\npush @a, 'x' x (10 << 20) while 1;",
    spawnBomb: "while (1) { my $p = fork(); if (defined $p && $p == 0) { exec('/bin/sleep', '100'); } }",
    daemon: "my $c = fork();\nif ($c == 0) { exec('/usr/bin/setsid', '/bin/sleep', '30'); }\nprint \"spawned $c\\n\";",
    pastCap: "my $b = 'x' x (1 << 20);\nsyswrite(STDOUT, $b) for 1 .. 8;",
    killsParent: 'kill("KILL", getppid()) or die "cannot: $!";\n',
    ownKind: 'use strict;\n$x = 1;\n',
  },
  sh: {
    passes: 'add() { echo $(($1 + $2)); }\n[ "$(add 1 2)" = 3 ] || exit 1\n',
    fails: 'add() { echo $(($1 - $2)); }\n[ "$(add 1 2)" = 3 ] || exit 1\n',
    raises: 'set -e\nfalse_command_that_does_not_exist\necho after\n',
    syntax: 'f() {\n  if then\n}\n',
    output: 'echo hello\necho to stderr >&2\nprintf "%s" "$HOME"\n',
    exitZero: 'echo bye\nexit 0\n',
    // Its own /proc/self: a child that changed uid is dumpable again, as a program exec'd as the uid is.
    ownProc: 'if (: < /proc/$$/environ) 2>/dev/null; then echo environ readable; else echo environ unreadable; fi\n',
    exitThree: 'exit 3\n',
    loop: 'while :; do :; done',
    memoryBomb: 'a=x\nwhile :; do a=$a$a; done',
    spawnBomb: 'while :; do /bin/sleep 100 & done',
    daemon: 'setsid /bin/sleep 30 > /dev/null 2>&1 &\necho "spawned $!"',
    pastCap: "head -c 8388608 /dev/zero | tr '\\0' x",
    killsParent: 'kill -9 $PPID',
    ownKind: 'echo $((1 / 0))\n',
  },
  php: {
    passes:
      '<?php\nfunction add($a, $b) { return $a + $b; }\nfunction candidate(...$args) { return add(...$args); }\nfunction test(): void {\n    if (candidate(1, 2) !== 3) { throw new Exception("Test failed!"); }\n}\ntest();\n',
    fails: '<?php\nfunction add($a, $b) { return $a - $b; }\nif (add(1, 2) !== 3) { throw new Exception("Test failed!"); }\n',
    raises: '<?php\nfunction f($x) { return $x->foo(); }\nf(null);\n',
    syntax: '<?php\nfunction f( {\n',
    output: '<?php\necho "hello\\n";\nfwrite(STDERR, "to stderr\\n");\n',
    exitZero: '<?php\necho "bye\\n";\nexit(0);\n',
    // Its own /proc/self: a child that changed uid is dumpable again, as a program exec'd as the uid is.
    ownProc: '<?php\necho @file_get_contents(\'/proc/self/environ\') === false ? "environ unreadable\\n" : "environ readable\\n";\n',
    exitThree: '<?php\nexit(3);\n',
    loop: '<?php\nwhile (true) {}',
    memoryBomb: "<?php\n$a = [];\nwhile (true) $a[] = str_repeat('x', 10 << 20);",
    spawnBomb: "<?php\nwhile (true) { @exec('/bin/sleep 100 > /dev/null 2>&1 &'); }",
    daemon: '<?php\n$pid = trim(shell_exec(\'setsid /bin/sleep 30 > /dev/null 2>&1 & echo $!\'));\necho "spawned $pid\\n";',
    pastCap: "<?php\n$b = str_repeat('x', 1 << 20);\nfor ($i = 0; $i < 8; $i++) fwrite(STDOUT, $b);",
    killsParent: '<?php\nvar_dump(posix_kill(posix_getppid(), 9));\nexit(posix_get_last_error() ? 1 : 0);\n',
    ownKind: '<?php\nfunction f(int $x): int { return $x; }\nf("abc");\n',
  },
  lua: {
    passes:
      "local lu = require('luaunit')\nlocal function add(a, b) return a + b end\nfunction test_humaneval()\n  lu.assertEquals(add(1, 2), 3)\nend\nos.exit(lu.LuaUnit.run())\n",
    fails:
      "local lu = require('luaunit')\nlocal function add(a, b) return a - b end\nfunction test_humaneval()\n  lu.assertEquals(add(1, 2), 3)\nend\nos.exit(lu.LuaUnit.run())\n",
    raises:
      "local lu = require('luaunit')\nfunction test_humaneval()\n  local x = nil\n  lu.assertEquals(x.y, 3)\nend\nos.exit(lu.LuaUnit.run())\n",
    syntax: 'local function f(\n  return 1\nend\n',
    output: "print('hello')\nio.stderr:write('to stderr\\n')\n",
    exitZero: "print('bye')\nos.exit(0)\n",
    // Its own /proc/self: a child that changed uid is dumpable again, as a program exec'd as the uid is.
    ownProc: "local f = io.open('/proc/self/environ')\nprint(f and 'environ readable' or 'environ unreadable')\n",
    exitThree: 'os.exit(3)\n',
    loop: 'while true do end',
    memoryBomb: "local t = {}\nwhile true do t[#t + 1] = string.rep('x', 10 * 1024 * 1024) .. #t end",
    spawnBomb: "while true do os.execute('/bin/sleep 100 &') end",
    daemon: "print('spawned ' .. io.popen('setsid /bin/sleep 30 > /dev/null 2>&1 & echo $!'):read('l'))",
    pastCap: "local b = string.rep('x', 1 << 20)\nfor i = 1, 8 do io.stdout:write(b) end",
    killsParent: "local ok = os.execute('kill -9 $PPID')\nos.exit(ok and 0 or 1)\n",
    ownKind: 'error({code = 1})\n',
  },
  js: {
    passes:
      "const assert = require('node:assert');\nfunction add(a, b) { return a + b; }\nconst test = () => {\n  const candidate = add;\n  assert.deepEqual(candidate(1, 2), 3);\n};\ntest();\n",
    fails:
      "const assert = require('node:assert');\nfunction add(a, b) { return a - b; }\nconst test = () => {\n  const candidate = add;\n  assert.deepEqual(candidate(1, 2), 3);\n};\ntest();\n",
    raises: 'function f(x) {\n  return x.foo;\n}\nf(null);\n',
    syntax: 'function f( {\n',
    output: "console.log('hello');\nconsole.error('to stderr');\nprocess.stdout.write(JSON.stringify([1, 2]));\n",
    exitZero: "console.log('bye');\nprocess.exit(0);\n",
    // Its own /proc/self: a child that changed uid is dumpable again, as a program exec'd as the uid is.
    ownProc:
      "try {\n  require('fs').readFileSync('/proc/self/environ');\n  console.log('environ readable');\n} catch (e) {\n  console.log('environ: ' + e.code);\n}\n",
    exitThree: "console.error('leaving');\nprocess.exit(3);\n",
    loop: 'while (true) {}',
    memoryBomb: 'const a = [];\nfor (;;) a.push(new Array(1e6).fill(1.5));',
    // Spawning from a timer (a tight loop piles up failed spawns until V8 aborts, each time at another place).
    spawnBomb:
      "const cp = require('child_process');\nsetInterval(() => { try { cp.spawn('/bin/sleep', ['100']).on('error', () => {}); } catch (e) {} }, 1);",
    daemon:
      "const cp = require('child_process');\nconst c = cp.spawn('/usr/bin/setsid', ['/bin/sleep', '30'], { detached: true, stdio: 'ignore' });\nc.unref();\nconsole.log('spawned ' + c.pid);",
    pastCap: "const b = Buffer.alloc(1 << 20, 120);\nconst fs = require('fs');\nfor (let i = 0; i < 8; i++) fs.writeSync(1, b);",
    killsParent: "try {\n  process.kill(process.ppid, 'SIGKILL');\n} catch (e) {\n  console.log(e.code);\n  process.exit(1);\n}\n",
    ownKind: "Promise.reject(new TypeError('later'));\n",
  },
  r: {
    passes:
      'add <- function(a, b) {\n  a + b\n}\ntest_humaneval <- function() {\n  candidate <- add\n  stopifnot(isTRUE(all.equal(candidate(1, 2), 3)))\n}\ntest_humaneval()\n',
    fails:
      'add <- function(a, b) {\n  a - b\n}\ntest_humaneval <- function() {\n  candidate <- add\n  stopifnot(isTRUE(all.equal(candidate(1, 2), 3)))\n}\ntest_humaneval()\n',
    raises: "f <- function(x) stop('boom')\nf(1)\n",
    syntax: 'f <- function(x {\n  x\n}\n',
    output: "cat('hello\\n')\nmessage('to stderr')\nprint(c(1, 2))\n",
    exitZero: "cat('bye\\n')\nquit(status = 0)\n",
    // Its own /proc/self: a child that changed uid is dumpable again, as a program exec'd as the uid is.
    ownProc:
      "x <- tryCatch({ readBin('/proc/self/environ', 'raw', 100000); 'environ readable' }, error = function(e) 'environ unreadable', warning = function(w) 'environ unreadable')\ncat(x, '\\n')\n",
    exitThree: "message('leaving')\nquit(status = 3)\n",
    loop: 'repeat {}',
    memoryBomb: 'a <- list()\ni <- 0\nrepeat { i <- i + 1; a[[i]] <- numeric(1e7) + i }',
    spawnBomb: "repeat { try(system('/bin/sleep 100', wait = FALSE), silent = TRUE) }",
    daemon: "invisible(system('setsid /bin/sleep 30 > /dev/null 2>&1 & echo spawned $!'))",
    pastCap: "b <- strrep('x', 2^20)\nfor (i in 1:8) cat(b)",
    killsParent: "quit(status = system('kill -9 $PPID'))\n",
    ownKind: "warning('late')\nx <- log(-1)\nstopifnot(is.finite(x))\n",
  },
  d: {
    passes: 'long add(long a, long b) { return a + b; }\nunittest { assert(add(1, 2) == 3); }\nvoid main(){}\n',
    fails: 'long add(long a, long b) { return a - b; }\nunittest { assert(add(1, 2) == 3); }\nvoid main(){}\n',
    raises: 'int f(int[] a) { return a[5]; }\nvoid main() { f([1]); }\n',
    syntax: 'void main() {\n',
    output: 'import std.stdio;\nvoid main() { writeln("hello"); stderr.writeln("to stderr"); write([1, 2]); }\n',
    exitZero: 'import std.stdio, core.stdc.stdlib;\nvoid main() { writeln("bye"); stdout.flush(); exit(0); }\n',
    // Its own /proc/self: a child that changed uid is dumpable again, as a program exec'd as the uid is.
    ownProc:
      'import std.stdio, std.file;\nvoid main() { try { read("/proc/self/environ"); writeln("environ readable"); } catch (Exception e) { writeln("environ unreadable"); } }\n',
    exitThree: 'import std.stdio, core.stdc.stdlib;\nvoid main() { stderr.writeln("leaving"); exit(3); }\n',
    loop: 'void main() { while (true) {} }\n',
    memoryBomb: 'void main() { long[][] a; while (true) a ~= new long[1 << 20]; }\n',
    spawnBomb:
      'import std.process;\nvoid main() { while (true) { try { spawnProcess(["/bin/sleep", "100"]); } catch (Exception e) {} } }\n',
    daemon:
      'import std.process, std.stdio;\nvoid main() { auto pid = spawnProcess(["/usr/bin/setsid", "/bin/sleep", "30"]); writeln("spawned ", pid.processID); }\n',
    pastCap: "import std.stdio;\nvoid main() { auto b = new char[1 << 20]; b[] = 'x'; foreach (i; 0 .. 8) stdout.rawWrite(b); }\n",
    killsParent:
      'import core.sys.posix.signal, core.sys.posix.unistd, core.stdc.stdlib, std.stdio;\nvoid main() { if (kill(getppid(), SIGKILL) != 0) { writeln("refused"); exit(1); } }\n',
    ownKind: 'void main() { int* p = null; *p = 1; }\n',
  },
  cs: {
    passes:
      'using System;\nusing System.Diagnostics;\nclass Problem {\n    static long Add(long a, long b) { return a + b; }\n    public static void Main(string[] args) { Debug.Assert(Add(1, 2) == 3); }\n}\n',
    fails:
      'using System;\nusing System.Diagnostics;\nclass Problem {\n    static long Add(long a, long b) { return a - b; }\n    public static void Main(string[] args) { Debug.Assert(Add(1, 2) == 3); }\n}\n',
    raises: 'class Problem { static void Main() { object o = null; o.ToString(); } }\n',
    syntax: 'class Problem { static void Main() { int x = ; } }\n',
    output:
      'using System;\nclass Problem { static void Main() { Console.WriteLine("hello"); Console.Error.WriteLine("to stderr"); Console.Write("[1, 2]"); } }\n',
    exitZero: 'using System;\nclass Problem { static void Main() { Console.WriteLine("bye"); Environment.Exit(0); } }\n',
    // Its own /proc/self: a child that changed uid is dumpable again, as a program exec'd as the uid is.
    ownProc:
      'using System;\nusing System.IO;\nclass Problem { static void Main() { try { File.ReadAllBytes("/proc/self/environ"); Console.WriteLine("environ readable"); } catch (Exception) { Console.WriteLine("environ unreadable"); } } }\n',
    exitThree: 'using System;\nclass Problem { static void Main() { Console.Error.WriteLine("leaving"); Environment.Exit(3); } }\n',
    loop: 'class Problem { static void Main() { while (true) {} } }\n',
    memoryBomb:
      'using System.Collections.Generic;\nclass Problem { static void Main() { var a = new List<long[]>(); while (true) a.Add(new long[1 << 20]); } }\n',
    spawnBomb:
      'using System.Diagnostics;\nclass Problem { static void Main() { while (true) { try { Process.Start("/bin/sleep", "100"); } catch (System.Exception) {} } } }\n',
    daemon:
      'using System;\nusing System.Diagnostics;\nclass Problem { static void Main() { var p = Process.Start("/usr/bin/setsid", "/bin/sleep 30"); Console.WriteLine("spawned " + p.Id); } }\n',
    pastCap:
      "using System;\nclass Problem { static void Main() { var s = new string('x', 1 << 20); for (int i = 0; i < 8; i++) Console.Out.Write(s); } }\n",
    killsParent:
      'using System;\nusing System.Diagnostics;\nclass Problem { static void Main() { var p = Process.Start("/bin/sh", "-c \\"kill -9 $PPID\\""); p.WaitForExit(); Environment.Exit(p.ExitCode == 0 ? 0 : 1); } }\n',
    ownKind: 'using System;\nclass Problem { static void Main() { throw new InvalidOperationException("late"); } }\n',
  },
};

/** A child's view of itself and of what an earlier program left: its uid, capabilities, /tmp, processes. */
const PROBES: Partial<Record<ProcessLanguageId, { leaves: string; looks: string }>> = {
  rb: {
    leaves:
      "File.write('/tmp/left-behind', 'x')\nProcess.spawn('/usr/bin/setsid', '/bin/sleep', '30')\nsystem('ipcmk', '-M', '4096')\nputs 'left'",
    looks:
      "puts \"uid=#{Process.uid} euid=#{Process.euid}\"\nputs File.read('/proc/self/status')[/^CapEff:.*$/]\nputs \"tmp=#{Dir.children('/tmp').sort.join(',')}\"\nputs \"sleeps=#{Dir.children('/proc').grep(/\\A\\d+\\z/).count { |p| (File.read(\"/proc/#{p}/cmdline\") rescue '').start_with?('/bin/sleep') }}\"\nputs \"ipc=#{File.readlines('/proc/sysvipc/shm').size - 1}\"",
  },
  pl: {
    leaves:
      "open(my $f, '>', '/tmp/left-behind') or die;\nmy $c = fork();\nif ($c == 0) { exec('/usr/bin/setsid', '/bin/sleep', '30'); }\nsystem('ipcmk', '-M', '4096');\nprint \"left\\n\";",
    looks:
      'print "uid=$< euid=$>\\n";\nopen(my $s, "<", "/proc/self/status");\nprint grep { /^CapEff:/ } <$s>;\nopendir(my $t, "/tmp");\nprint "tmp=", join(",", sort grep { !/^\\./ } readdir($t)), "\\n";\nopendir(my $p, "/proc");\nmy $n = grep { /^\\d+$/ && do { open(my $c, "<", "/proc/$_/cmdline") && (<$c> // "") =~ m{^/bin/sleep} } } readdir($p);\nprint "sleeps=$n\\n";\nopen(my $i, "<", "/proc/sysvipc/shm");\nmy @l = <$i>;\nprint "ipc=", scalar(@l) - 1, "\\n";',
  },
  sh: {
    leaves: 'echo x > /tmp/left-behind\nsetsid /bin/sleep 30 > /dev/null 2>&1 &\nipcmk -M 4096\necho left',
    looks:
      'echo "uid=$(id -u) euid=$(id -u)"\ngrep ^CapEff: /proc/self/status\necho "tmp=$(ls -A /tmp | sort | paste -sd,)"\necho "sleeps=$(grep -l "^/bin/sleep" /proc/[0-9]*/cmdline 2>/dev/null | wc -l)"\necho "ipc=$(tail -n +2 /proc/sysvipc/shm | wc -l)"',
  },
  r: {
    leaves:
      "writeLines('x', '/tmp/left-behind')\ninvisible(system('setsid /bin/sleep 30 > /dev/null 2>&1 &'))\ninvisible(system('ipcmk -M 4096'))\ncat('left\\n')",
    looks:
      "ids <- system('id -u; id -G', intern = TRUE)\ncat(sprintf('uid=%s euid=%s\\n', ids[1], ids[1]))\ncat(grep('^CapEff:', readLines('/proc/self/status'), value = TRUE), '\\n', sep = '')\ncat('tmp=', paste(sort(setdiff(list.files('/tmp', all.files = TRUE, no.. = TRUE), basename(tempdir()))), collapse = ','), '\\n', sep = '')\nn <- sum(vapply(list.files('/proc', pattern = '^[0-9]+$', full.names = TRUE), function(p) { x <- tryCatch(readBin(file.path(p, 'cmdline'), 'raw', 200), error = function(e) raw(0)); startsWith(rawToChar(x[x != as.raw(0)]), '/bin/sleep') }, logical(1)))\ncat('sleeps=', n, '\\n', sep = '')\ncat('groups=', if (ids[2] == ids[1]) '' else ids[2], '\\n', sep = '')\ncat('ipc=', length(readLines('/proc/sysvipc/shm')) - 1, '\\n', sep = '')",
  },
  lua: {
    leaves:
      "io.open('/tmp/left-behind', 'w'):write('x'):close()\nos.execute('setsid /bin/sleep 30 > /dev/null 2>&1 &')\nos.execute('ipcmk -M 4096')\nprint('left')",
    looks:
      "local function sh(c) local p = io.popen(c) local s = p:read('a') p:close() return s end\nlocal uid = sh('id -u'):gsub('%s', '')\nprint('uid=' .. uid .. ' euid=' .. sh('id -u'):gsub('%s', ''))\nfor l in io.lines('/proc/self/status') do if l:match('^CapEff:') then print(l) end end\nprint('tmp=' .. sh('ls -A /tmp | sort | paste -sd,'):gsub('%s', ''))\nprint('sleeps=' .. sh('grep -l ^/bin/sleep /proc/[0-9]*/cmdline 2>/dev/null | wc -l'):gsub('%s', ''))\nlocal g = sh('id -G'):gsub('%s', '')\nprint('groups=' .. (g == uid and '' or g))\nprint('ipc=' .. sh('tail -n +2 /proc/sysvipc/shm | wc -l'):gsub('%s', ''))",
  },
  php: {
    leaves:
      "<?php\nfile_put_contents('/tmp/left-behind', 'x');\nshell_exec('setsid /bin/sleep 30 > /dev/null 2>&1 &');\necho shell_exec('ipcmk -M 4096');\necho \"left\\n\";",
    looks:
      "<?php\necho 'uid=' . posix_getuid() . ' euid=' . posix_geteuid() . \"\\n\";\npreg_match('/^CapEff:.*$/m', file_get_contents('/proc/self/status'), $m);\necho $m[0], \"\\n\";\necho 'tmp=' . implode(',', array_diff(scandir('/tmp'), ['.', '..'])) . \"\\n\";\n$n = 0;\nforeach (glob('/proc/[0-9]*/cmdline') as $c) if (str_starts_with((string) @file_get_contents($c), '/bin/sleep')) $n++;\necho \"sleeps=$n\\n\";\necho 'groups=' . implode(',', posix_getgroups()) . \"\\n\";\necho 'ipc=' . (count(file('/proc/sysvipc/shm')) - 1) . \"\\n\";",
  },
};

const LANGUAGES = Object.keys(PROGRAMS) as ProcessLanguageId[];
const PROBED = Object.keys(PROBES) as ProcessLanguageId[];

/** What must match between the two runs, digits aside (pids, timings, V8's isolate addresses). */
function comparable(r: ExecutionResult, id?: string) {
  const digits = (s: string | undefined) => s?.replace(/0x[0-9a-f]+/gi, '0xN').replace(/\d+/g, 'N');
  // How many of a spawn bomb's forks fail before the time limit (each a line such as "sh: N: Cannot
  // fork") depends on the machine's load, not on the runner: a run of equal lines counts as one.
  const once = (s: string | undefined) =>
    id === 'spawnBomb'
      ? s
          ?.split('\n')
          .filter((line, i, all) => line !== all[i - 1])
          .join('\n')
      : s;
  // And its last line can be cut, by the output cap (at a place that moves with the pids' lengths)
  // or by the time limit's kill between a shell's two writes of one message ("sh: N: ", then
  // "Cannot fork"): only whole lines count.
  const whole = (s: string) => (id === 'spawnBomb' ? s.slice(0, s.lastIndexOf('\n') + 1) : s);
  // Node's out-of-memory report lists its last few collections, how many and padded how wide
  // depending on timing: they are left out, the report's other lines compared.
  const gcs = (s: string | undefined) => (id === 'memoryBomb' ? s?.replace(/^\[N:NxN\] +N ms: .*\n/gm, '') : s);
  return {
    status: r.status,
    type: r.exception?.type,
    message: digits(r.exception?.message),
    stdout: once(digits(whole(r.stdout))),
    stderr: gcs(once(digits(whole(r.stderr)))),
    exitCode: r.exitCode,
    signal: r.signal,
  };
}

/**
 * Every program run forked and alone at once: the same outcome both ways (digits aside), each one
 * forked. Returns both runs' results by program id.
 */
async function sameBothWays(language: ProcessLanguageId, programs: Record<string, string>) {
  const forked = new ProcessExecutor(toolchainFor(language), { concurrency: 2, limits: limitsFor(language), forkServer: true });
  const alone = new ProcessExecutor(toolchainFor(language), { concurrency: 2, limits: limitsFor(language), forkServer: false });
  try {
    const cases = Object.entries(programs);
    const [viaFork, lone] = await Promise.all([
      Promise.all(cases.map(([id, program]) => forked.run({ id, program }))),
      Promise.all(cases.map(([id, program]) => alone.run({ id, program }))),
    ]);
    cases.forEach(([id], k) => {
      expect({ id, ...comparable(viaFork[k]!, id) }).toEqual({ id, ...comparable(lone[k]!, id) });
      expect(viaFork[k]!.forked, id).toBe(true);
    });
    const byId = (results: ExecutionResult[]) => Object.fromEntries(cases.map(([id], k) => [id, results[k]!]));
    return { forked: byId(viaFork), lone: byId(lone) };
  } finally {
    await forked.close();
    await alone.close();
  }
}

describe.each(LANGUAGES)('%s: a forked program ends as its lone run does', (language) => {
  let forked: ProcessExecutor;
  let alone: ProcessExecutor;
  beforeAll(() => {
    forked = new ProcessExecutor(toolchainFor(language), { concurrency: 2, limits: limitsFor(language), forkServer: true });
    alone = new ProcessExecutor(toolchainFor(language), { concurrency: 2, limits: limitsFor(language), forkServer: false });
  });
  afterAll(async () => {
    await forked.close();
    await alone.close();
  });

  it('every program of the set: the same outcome both ways, and forked', async () => {
    const cases = Object.entries(PROGRAMS[language]!);
    const [viaFork, lone] = await Promise.all([
      Promise.all(cases.map(([id, program]) => forked.run(requestFor(language, id, program)))),
      Promise.all(cases.map(([id, program]) => alone.run(requestFor(language, id, program)))),
    ]);
    cases.forEach(([id], k) => {
      expect({ id, ...comparable(viaFork[k]!, id) }).toEqual({ id, ...comparable(lone[k]!, id) });
      // A compiled language's compile error never reaches a run.
      expect(viaFork[k]!.forked, id).toBe(COMPILED.includes(language) && viaFork[k]!.status === 'compile_error' ? undefined : true);
      expect(lone[k]!.forked, id).toBeUndefined();
    });
    const byId = Object.fromEntries(cases.map(([id], k) => [id, viaFork[k]!]));
    expect(byId.passes!.status).toBe('passed');
    expect(byId.fails!.status).toBe('failed');
    expect(byId.syntax!.status).toBe('compile_error');
    expect(byId.loop!.status).toBe('timeout');
    expect(byId.pastCap!.stdoutBytes).toBe(8 << 20);
    expect(byId.pastCap!.stdout.length).toBe(LIMITS.maxOutputBytes);
    expect(byId.ownProc!.stdout.trim()).toBe('environ readable');
  }, 300_000);

  it('a program that tries to kill its server fails as alone, and the next program is still forked', async () => {
    const one = new ProcessExecutor(toolchainFor(language), { concurrency: 1, limits: limitsFor(language), forkServer: true });
    try {
      const attempt = await one.run({ id: 'kills', program: PROGRAMS[language]!.killsParent });
      expect(attempt.status).not.toBe('passed');
      const next = await one.run({ id: 'next', program: PROGRAMS[language]!.passes });
      expect(next.status).toBe('passed');
      expect(next.forked).toBe(true);
      // An exit status of an earlier program does not leak into a later one's (Perl's die takes $? into its exit code).
      await one.run({ id: 'exits', program: PROGRAMS[language]!.exitThree });
      const [after, lone] = await Promise.all([
        one.run({ id: 'raises', program: PROGRAMS[language]!.raises }),
        alone.run({ id: 'raises', program: PROGRAMS[language]!.raises }),
      ]);
      expect(after.forked).toBe(true);
      expect(comparable(after)).toEqual(comparable(lone));
    } finally {
      await one.close();
    }
  }, 120_000);
});

describe('pl: what the Perl server screens out runs alone', () => {
  it('top-level caller (true under do FILE) and a DATA section: alone, with the lone outcome', async () => {
    const executor = new ProcessExecutor(toolchainFor('pl'), { concurrency: 1, limits: LIMITS, forkServer: true });
    try {
      const viaCaller = await executor.run({ id: 'caller', program: 'exit 3 unless caller;\nprint "library\\n";\n' });
      expect(viaCaller.forked).toBeUndefined();
      expect(viaCaller.exitCode).toBe(3);
      const viaData = await executor.run({ id: 'data', program: 'print <DATA>;\n__DATA__\nfrom data\n' });
      expect(viaData.forked).toBeUndefined();
      expect(viaData.stdout).toBe('from data\n');
    } finally {
      await executor.close();
    }
  }, 60_000);
});

describe.each(PROBED)('%s: what a forked program leaves does not reach the next one', (language) => {
  it("a program's files, processes and SysV IPC objects are gone for the next one; it runs as its slot's uid, without capabilities", async () => {
    const probe = PROBES[language]!;
    // One slot: the second program is forked by the server that forked the first.
    const one = new ProcessExecutor(toolchainFor(language), { concurrency: 1, limits: LIMITS, forkServer: true });
    try {
      const left = await one.run({ id: 'leaves', program: probe.leaves });
      expect(left.stdout).toContain('left');
      // A SysV shared memory segment it made (ipcmk), which its server's IPC namespace outlives.
      expect(left.stdout).toContain('Shared memory id:');
      const look = await one.run({ id: 'looks', program: probe.looks });
      expect(look.forked).toBe(true);
      const [uid] = one.uidRange;
      expect(look.stdout).toContain(`uid=${uid} euid=${uid}`);
      expect(look.stdout).toMatch(/CapEff:\s+0+\n/);
      expect(look.stdout).toContain('tmp=\n');
      expect(look.stdout).toContain('sleeps=0');
      expect(look.stdout).toContain('ipc=0\n');
      // The probes that print supplementary groups: none, as setpriv --clear-groups leaves a lone run.
      if (probe.looks.includes('groups=')) expect(look.stdout).toContain('groups=\n');
    } finally {
      await one.close();
    }
  }, 60_000);
});

/**
 * What a PHP program included by a warm php could see otherwise than a main script: its globals,
 * argv and $_SERVER's script entries, names the server uses, the kinds of STDIN/STDOUT/STDERR,
 * an uncaught exception's trace (with a previous one), output buffers and shutdown functions.
 */
const PHP_SCRIPT_LIKE: Record<string, string> = {
  globals: '<?php\n$total = 5;\nfunction bump() { global $total; $total++; return $total; }\necho bump(), " ", $GLOBALS["total"], "\\n";',
  argv: '<?php\necho json_encode([$argc, $argv, $_SERVER["argv"], $_SERVER["SCRIPT_NAME"], $_SERVER["PHP_SELF"], __FILE__, __LINE__, getcwd()]), "\\n";',
  serverNames:
    '<?php\nconst PROGRAM = 1;\nfunction serve() { return 2; }\nfunction libc() { return 3; }\nfunction serveOne() { return 4; }\necho PROGRAM + serve() + libc() + serveOne(), "\\n";',
  streams:
    '<?php\nforeach ([STDIN, STDOUT, STDERR] as $s) { $m = stream_get_meta_data($s); echo $m["stream_type"], " ", $m["mode"], " ", json_encode($m["blocked"]), "\\n"; }\nvar_dump(fgets(STDIN), feof(STDIN), file_get_contents("php://stdin"));',
  trace:
    '<?php\nclass Thing { function go($n) { if ($n === 0) throw new RuntimeException("inner", 7); return $this->go($n - 1); } }\nfunction outer() { try { (new Thing())->go(2); } catch (Exception $e) { throw new LogicException("outer", 0, $e); } }\narray_map(fn ($x) => outer(), [1]);',
  buffered:
    '<?php\nob_start();\necho "kept in a buffer\\n";\nregister_shutdown_function(function () { echo "at shutdown\\n"; exit(4); });\nclass D { function __destruct() { echo "destructed\\n"; } }\n$d = new D();',
  notice: '<?php\necho $undefined ?? "none", "\\n";\necho $undefined, "\\n";\n$a = [];\necho $a["k"], "\\n";\nreturn 5;',
  fatal: '<?php\nfunction f(): int { return "x"; }\necho "before\\n";\nf();',
  topLevelThrow: '<?php\nthrow new Exception("Test failed!");',
  // Nothing of the server's is open in the child: its descriptors are the lone run's (0, 1, 2 and scandir's own).
  fds: '<?php\necho count(scandir("/proc/self/fd")), " ", getmypid() > 1 ? "pid" : "no pid", "\\n";',
};

describe('php: an included program sees what a main script sees', () => {
  it('globals, argv, names, streams, traces, buffers, notices: the same outcome both ways, and forked', async () => {
    const { forked: byId } = await sameBothWays('php', PHP_SCRIPT_LIKE);
    expect(byId.globals!.stdout).toBe('6 6\n');
    expect(byId.serverNames!.stdout).toBe('10\n');
    expect(byId.trace!.stderr).toContain('Next LogicException: outer');
    expect(byId.trace!.stderr).not.toContain('/fork/');
    expect(byId.buffered!.exitCode).toBe(4);
  }, 120_000);
});

/** Host pids of the processes under this test process whose command line names a fork server script. */
function ourServers(script: string): number[] {
  const parentOf = (pid: number) => Number(/^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  const ours = (pid: number) => {
    for (let p = pid, hops = 0; p > 1 && hops < 20; p = parentOf(p), hops++) if (p === process.pid) return true;
    return false;
  };
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (argv.some((a) => a.endsWith(script)) && !argv.includes('--') && ours(Number(entry))) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Whether a process of the uid runs (the program, forked by the server). */
function runsAs(uid: number): boolean {
  return readdirSync('/proc').some((e) => {
    if (!/^\d+$/.test(e)) return false;
    try {
      return statSync(`/proc/${e}`).uid === uid;
    } catch {
      return false;
    }
  });
}

describe.each([
  ['php', 'php.php', '<?php\nusleep(1500000);\necho "done\\n";\nexit(2);\n'],
  ['pl', 'pl.pl', 'select(undef, undef, undef, 1.5);\nprint "done\\n";\nexit 2;\n'],
  ['r', 'r.R', "Sys.sleep(1.5)\ncat('done\\n')\nquit(status = 2)\n"],
  ['lua', 'lua.lua', "os.execute('sleep 1.5')\nprint('done')\nos.exit(2)\n"],
] as const)('%s: a server that dies while its program runs', (language, script, program) => {
  it('the program falls back to its lone run, with the lone outcome; the next program is forked by a fresh server', async () => {
    const one = new ProcessExecutor(toolchainFor(language), { concurrency: 1, limits: { ...LIMITS, timeoutMs: 10_000 }, forkServer: true });
    const alone = new ProcessExecutor(toolchainFor(language), {
      concurrency: 1,
      limits: { ...LIMITS, timeoutMs: 10_000 },
      forkServer: false,
    });
    try {
      // A first program starts the slot's server.
      expect((await one.run({ id: 'warm', program: PROGRAMS[language]!.exitZero })).forked).toBe(true);
      const [server] = ourServers(`/fork/${script}`);
      expect(server).toBeGreaterThan(0);
      const [uid] = one.uidRange;
      const running = one.run({ id: 'slow', program });
      // Killed once its child runs the program (a process of the slot's uid exists).
      const deadline = Date.now() + 8_000;
      while (!runsAs(uid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(runsAs(uid)).toBe(true);
      process.kill(server!, 'SIGKILL');
      const [result, lone] = await Promise.all([running, alone.run({ id: 'slow', program })]);
      expect(result.forked).toBeUndefined();
      expect(comparable(result)).toEqual(comparable(lone));
      expect(result.stdout).toBe('done\n');
      expect(result.exitCode).toBe(2);
      const next = await one.run({ id: 'next', program: PROGRAMS[language]!.passes });
      expect(next.forked).toBe(true);
      expect(next.status).toBe('passed');
      expect(ourServers(`/fork/${script}`)).not.toContain(server);
    } finally {
      await one.close();
      await alone.close();
    }
  }, 120_000);
});

describe.each(['rb', 'pl', 'php', 'r', 'lua'] as const)('%s: the fork server refuses to start unless bwrap is its pid 1', (language) => {
  it('in a sandbox whose pid 1 is a shell: it says why, exits non-zero, and /tmp keeps its files', () => {
    const spec = toolchainFor(language).forkServer!();
    const script = `/fork/${spec.script.split('/').pop()}`;
    // Still inside a sandbox of its own (a fresh tmpfs /tmp), never on the host: only pid 1 differs.
    const argv = spec
      .argv(script)
      .map((a) => `'${a.replace(/'/g, "'\\''")}'`)
      .join(' ');
    const shell = `echo kept > /tmp/marker; echo '{}' | ${argv}; echo "status=$?"; ls /tmp`;
    const run = spawnSync(
      findBwrap()!,
      [
        ...isolationArgs({ tmpBytes: 16 << 20, tmpWorldWritable: true, ownUserNamespace: false }),
        ...readOnlyMountArgs([...toolchainFor(language).mounts(), ...(spec.mounts ?? []), { host: spec.script, sandbox: script }]),
        '--as-pid-1',
        '--',
        '/bin/sh',
        '-c',
        shell,
      ],
      { env: { PATH: SANDBOX_PATH }, encoding: 'utf8', timeout: 60_000 },
    );
    expect(run.stderr).toMatch(/fork server runs only in its sandbox \(bwrap as pid 1\)/);
    expect(run.stdout).toMatch(/status=[1-9]\d*\n/);
    expect(run.stdout).toContain('marker');
  }, 60_000);
});

/**
 * What an R program read by a forked Rscript's console could see otherwise than Rscript's file:
 * top-level auto-printing, output before a later parse error (one expression at a time), warnings,
 * deep recursion, the global environment, search path, options, stdin, R's session directory.
 */
const R_SCRIPT_LIKE: Record<string, string> = {
  autoPrint: 'x <- c(a = 1, b = 2)\nx\nlist(1, "two")\ninvisible(3)\nmatrix(1:4, 2)\n',
  laterParseError: 'cat("first\\n")\ny <- 1 +\n  2\ny\nz <- (1 +\n}\ncat("never\\n")\n',
  warnings: 'f <- function() { warning("w1"); warning("w2"); 1 }\nf()\nas.integer("x")\nfor (i in 1:12) warning(paste("many", i))\n',
  recursion: 'f <- function(n) f(n + 1)\nf(0)\n',
  globals:
    'cat(ls(globalenv(), all.names = TRUE), "\\n")\ncounter <- 0\nbump <- function() counter <<- counter + 1\nbump(); bump()\ncat(counter, interactive(), exists(".Random.seed"), "\\n")\nprint(search())\n',
  options:
    'o <- options()\ncat(o$warn, o$digits, o$keep.source, o$echo, o$OutDec, o$encoding, "\\n")\ncat(nchar(Sys.getenv("R_HOME")) > 0, Sys.getenv("HOME"), getwd(), "\\n")\n',
  stdin: 'print(readLines(file("stdin")))\nprint(readline())\n',
  // R's session directory (tempdir(), made at R's start under /tmp, which the server empties before each program).
  tempfiles:
    'f <- tempfile()\nwriteLines("in a temp file", f)\ncat(readLines(f), dir.exists(tempdir()), file.access(tempdir(), 2) == 0, "\\n")\nprint(file.info(tempdir())$mode)\n',
  stopInFunction:
    'g <- function(x) { if (x > 1) stop("too big: ", x) ; x }\nh <- function() g(5)\ntryCatch(h(), error = function(e) print(conditionCall(e)))\nh()\n',
};

describe("r: a program read by a forked Rscript console sees what Rscript's file sees", () => {
  it('auto-print, a later parse error, warnings, recursion, globals, options, stdin, tempdir: the same outcome both ways, and forked', async () => {
    const { forked: byId } = await sameBothWays('r', R_SCRIPT_LIKE);
    expect(byId.laterParseError!.stdout).toContain('first');
    expect(byId.laterParseError!.stdout).not.toContain('never');
    expect(byId.autoPrint!.stdout).toContain('[1] "two"');
  }, 300_000);
});

/**
 * What a Lua program run by a forked lua (fork/luafork.c) could see otherwise than `lua program.lua`:
 * the traceback's frames (none of the server's), error objects that are not strings, `arg` and
 * `...`, the globals, a stack overflow and a C stack overflow (their depth), finalizers and
 * to-be-closed variables at the end, stdin, the descriptors it inherits.
 */
const LUA_SCRIPT_LIKE: Record<string, string> = {
  traceback: "local function inner(x) error('boom: ' .. x) end\nlocal function outer() inner(1) end\nouter()\n",
  errorObject: "error(setmetatable({}, { __tostring = function() return 'custom object' end }))\n",
  errorTable: 'error({ code = 1 })\n',
  errorNil: 'error()\n',
  args: "print(#arg, arg[0], arg[-1], arg[1], select('#', ...))\n",
  globals:
    "local names = {}\nfor k in pairs(_G) do names[#names + 1] = tostring(k) end\ntable.sort(names)\nprint(table.concat(names, ' '))\n",
  recursion: 'local function f(n) return 1 + f(n + 1) end\nprint(f(0))\n',
  cStack: "local t = setmetatable({}, { __index = function(t, k) return t[k .. 'x'] end })\nprint(t.x)\n",
  atClose:
    "setmetatable({}, { __gc = function() print('finalized at close') end })\nlocal x <close> = setmetatable({}, { __close = function() print('closed') end })\nprint('end')\n",
  closeOnError: "local x <close> = setmetatable({}, { __close = function() print('closed') end })\nerror('after')\n",
  stdin: "print(io.read('l'), io.read('a'))\n",
  fds: "local p = io.popen('ls -l /proc/$$/fd')\nprint(p:read('a'))\np:close()\n",
  luaunitArgs: "local lu = require('luaunit')\nfunction test_one() lu.assertTrue(true) end\nos.exit(lu.LuaUnit.run('-v'))\n",
};

describe('lua: a program run by a forked lua sees what `lua program.lua` sees', () => {
  it('tracebacks, error objects, arg, globals, stack overflows, closing, stdin, descriptors: the same outcome both ways, and forked', async () => {
    const { forked: byId, lone: loneById } = await sameBothWays('lua', LUA_SCRIPT_LIKE);
    expect(byId.traceback!.stderr).toMatch(/^lua: \/build\/program\.lua:1: boom: 1\nstack traceback:\n/);
    expect(byId.traceback!.stderr).toMatch(/in main chunk\n\t\[C\]: in \?\n$/);
    expect(byId.traceback!.stderr).not.toContain('/fork/');
    expect(byId.errorTable!.stderr).toContain('lua: (error object is a table value)');
    expect(byId.atClose!.stdout).toBe('end\nclosed\nfinalized at close\n');
    expect(byId.args!.stdout).toBe('0\t/build/program.lua\tlua\tnil\t0\n');
    // Digits too: a stack overflow's traceback counts the levels it skips, the same depth both ways.
    for (const id of ['recursion', 'cStack']) expect(byId[id]!.stderr, id).toBe(loneById[id]!.stderr);
    expect(byId.recursion!.stderr).toMatch(/stack overflow[\s\S]*skipping \d+ levels/);
  }, 120_000);

  it('a program that sets what luaunit reads when it loads runs alone, with the lone outcome', async () => {
    const executor = new ProcessExecutor(toolchainFor('lua'), { concurrency: 1, limits: LIMITS, forkServer: true });
    try {
      const program =
        "EXPORT_ASSERT_TO_GLOBALS = true\nlocal lu = require('luaunit')\nfunction test_one() assertEquals(1, 1) end\nos.exit(lu.LuaUnit.run())\n";
      const result = await executor.run({ id: 'exports', program });
      expect(result.forked).toBeUndefined();
      expect(result.status).toBe('passed');
    } finally {
      await executor.close();
    }
  }, 60_000);
});
