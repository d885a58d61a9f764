/**
 * Fork servers (infra/sandbox/warm/forkServer.ts, opt-in): on the real sandbox and the real
 * interpreters, every program of a varied set (passes, failed assertions, runtime and syntax
 * errors, output, exit calls, a loop, a memory bomb, a spawn bomb, a daemon, output past the cap)
 * runs twice, forked by its slot's warm interpreter and alone, and must end the same way (status,
 * exception, stdout, stderr, exit code, signal; digits aside: pids and test/unit's timings differ
 * from run to run). Then what one forked program does must not reach a later one: its files in
 * /tmp, its processes, an attempt on the server; and a child runs as the slot's uid without
 * capabilities.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../domain/execution/types.js';
import type { ProcessLanguageId } from '../../domain/languages/registry.js';
import { ProcessExecutor } from '../../infra/sandbox/process/processExecutor.js';
import { toolchainFor } from '../../infra/sandbox/toolchainRegistry.js';

const LIMITS = { timeoutMs: 2_000, maxProcesses: 16, maxOutputBytes: 4096, memoryBytes: 256 * 1024 * 1024 };

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
    exitThree: 'exit 3;\n',
    loop: '1 while 1;',
    memoryBomb: "my @a;\npush @a, 'x' x (10 << 20) while 1;",
    spawnBomb: "while (1) { my $p = fork(); if (defined $p && $p == 0) { exec('/bin/sleep', '100'); } }",
    daemon: "my $c = fork();\nif ($c == 0) { exec('/usr/bin/setsid', '/bin/sleep', '30'); }\nprint \"spawned $c\\n\";",
    pastCap: "my $b = 'x' x (1 << 20);\nsyswrite(STDOUT, $b) for 1 .. 8;",
    killsParent: 'kill("KILL", getppid()) or die "cannot: $!";\n',
    ownKind: 'use strict;\n$x = 1;\n',
  },
};

/** A child's view of itself and of what an earlier program left: its uid, capabilities, /tmp, processes. */
const PROBES: Partial<Record<ProcessLanguageId, { leaves: string; looks: string }>> = {
  rb: {
    leaves: "File.write('/tmp/left-behind', 'x')\nProcess.spawn('/usr/bin/setsid', '/bin/sleep', '30')\nputs 'left'",
    looks:
      "puts \"uid=#{Process.uid} euid=#{Process.euid}\"\nputs File.read('/proc/self/status')[/^CapEff:.*$/]\nputs \"tmp=#{Dir.children('/tmp').sort.join(',')}\"\nputs \"sleeps=#{Dir.children('/proc').grep(/\\A\\d+\\z/).count { |p| (File.read(\"/proc/#{p}/cmdline\") rescue '').start_with?('/bin/sleep') }}\"",
  },
  pl: {
    leaves:
      "open(my $f, '>', '/tmp/left-behind') or die;\nmy $c = fork();\nif ($c == 0) { exec('/usr/bin/setsid', '/bin/sleep', '30'); }\nprint \"left\\n\";",
    looks:
      'print "uid=$< euid=$>\\n";\nopen(my $s, "<", "/proc/self/status");\nprint grep { /^CapEff:/ } <$s>;\nopendir(my $t, "/tmp");\nprint "tmp=", join(",", sort grep { !/^\\./ } readdir($t)), "\\n";\nopendir(my $p, "/proc");\nmy $n = grep { /^\\d+$/ && do { open(my $c, "<", "/proc/$_/cmdline") && (<$c> // "") =~ m{^/bin/sleep} } } readdir($p);\nprint "sleeps=$n\\n";',
  },
};

const LANGUAGES = Object.keys(PROGRAMS) as ProcessLanguageId[];

/** What must match between the two runs, digits aside (pids, timings). */
function comparable(r: ExecutionResult) {
  const digits = (s: string | undefined) => s?.replace(/\d+/g, 'N');
  return {
    status: r.status,
    type: r.exception?.type,
    message: digits(r.exception?.message),
    stdout: digits(r.stdout),
    stderr: digits(r.stderr),
    exitCode: r.exitCode,
    signal: r.signal,
  };
}

describe.each(LANGUAGES)('%s: a forked program ends as its lone run does', (language) => {
  let forked: ProcessExecutor;
  let alone: ProcessExecutor;
  beforeAll(() => {
    forked = new ProcessExecutor(toolchainFor(language), { concurrency: 2, limits: LIMITS, forkServer: true });
    alone = new ProcessExecutor(toolchainFor(language), { concurrency: 2, limits: LIMITS });
  });
  afterAll(async () => {
    await forked.close();
    await alone.close();
  });

  it('every program of the set: the same outcome both ways, and forked', async () => {
    const cases = Object.entries(PROGRAMS[language]!);
    const [viaFork, lone] = await Promise.all([
      Promise.all(cases.map(([id, program]) => forked.run({ id, program }))),
      Promise.all(cases.map(([id, program]) => alone.run({ id, program }))),
    ]);
    cases.forEach(([id], k) => {
      expect({ id, ...comparable(viaFork[k]!) }).toEqual({ id, ...comparable(lone[k]!) });
      expect(viaFork[k]!.forked, id).toBe(true);
      expect(lone[k]!.forked, id).toBeUndefined();
    });
    const byId = Object.fromEntries(cases.map(([id], k) => [id, viaFork[k]!]));
    expect(byId.passes!.status).toBe('passed');
    expect(byId.fails!.status).toBe('failed');
    expect(byId.syntax!.status).toBe('compile_error');
    expect(byId.loop!.status).toBe('timeout');
    expect(byId.pastCap!.stdoutBytes).toBe(8 << 20);
    expect(byId.pastCap!.stdout.length).toBe(LIMITS.maxOutputBytes);
  }, 120_000);

  it("a program's files and processes are gone for the next one; it runs as its slot's uid, without capabilities", async () => {
    const probe = PROBES[language]!;
    // One slot: the second program is forked by the server that forked the first.
    const one = new ProcessExecutor(toolchainFor(language), { concurrency: 1, limits: LIMITS, forkServer: true });
    try {
      const left = await one.run({ id: 'leaves', program: probe.leaves });
      expect(left.stdout).toContain('left');
      const look = await one.run({ id: 'looks', program: probe.looks });
      expect(look.forked).toBe(true);
      const [uid] = one.uidRange;
      expect(look.stdout).toContain(`uid=${uid} euid=${uid}`);
      expect(look.stdout).toMatch(/CapEff:\s+0+\n/);
      expect(look.stdout).toContain('tmp=\n');
      expect(look.stdout).toContain('sleeps=0');
    } finally {
      await one.close();
    }
  }, 60_000);

  it('a program that tries to kill its server fails as alone, and the next program is still forked', async () => {
    const one = new ProcessExecutor(toolchainFor(language), { concurrency: 1, limits: LIMITS, forkServer: true });
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
  }, 60_000);
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
