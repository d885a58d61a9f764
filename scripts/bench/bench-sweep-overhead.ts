/**
 * `tsx scripts/bench/bench-sweep-overhead.ts [--samples 20000] [--tasks 164] [--samples-per-request 1] [--no-small] [--no-bare]
 * [--latency-ms 300 --endpoint-concurrency 64]
 * [--cpu-prof-dir DIR]`: the cost of durability. The same
 * HumanEval samples (canonical solutions, answered instantly by a scripted OpenAI-compatible server)
 * go through a full sweep (Temporal, S3 cache and records, sandbox activities, workers in one
 * child process) and through `scripts/evaluate.ts` (the bare executor, before and after the sweep,
 * since other work on a shared machine comes and goes), in one run. Prints both throughputs and
 * their ratio, the CPU each spends per sample and where (a figure other load disturbs less; the
 * workers' start-up, their CPU before the first LLM request, apart from what follows), the
 * largest history any workflow run reached, the S3 objects and bytes the sweep left per sample, and
 * the RSS over the run of each process (the sweep's, the sandbox's, the stack's Temporal and
 * SeaweedFS): memory should not grow with the sweep. `--no-small --no-bare` runs the sweep alone
 * (the million-sample run); `--cpu-prof-dir` keeps V8 CPU profiles of the sweep's process.
 * `--latency-ms` makes the server an endpoint of fixed latency serving `--endpoint-concurrency`
 * requests at once (issue 45: a sweep as fast as its endpoint), and prints the sweep's wall time
 * against its limit and where the rest went. Needs the
 * local stack (`npm run stack:up`). */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Command, Option } from 'commander';
import { resolvePythonExecutable } from '../../infra/sandbox/python.js';
import type { ExploraConfig } from '../../domain/config/env.js';
import { loadConfig } from '../../infra/config.js';
import { listObjects, s3ClientFor, type Bucket } from '../../infra/s3.js';
import { connectTemporal } from '../../infra/temporal/connection.js';
import { startScriptedLlmServer } from '../../test/support/scripted-llm-server.js';
import { PROJECT_ROOT, stackStatus } from '../../stack/local-stack.js';
import { npmScriptNodeFlags } from '../lib/node-flags.js';
import { limitedEndpoint, sweepLimit, type EndpointLimits } from './lib/endpoint-limits.js';

const HUMANEVAL = path.resolve(PROJECT_ROOT, '../shared/reference/humaneval/HumanEval.jsonl.gz');
/** How a user starts each side: `npm run sweep` (bin/run.mjs, with the script's node flags) and bin/evaluate.mjs, from their kept bundles. */
const RUN = path.join(PROJECT_ROOT, 'bin/run.mjs');
const EVALUATE = path.join(PROJECT_ROOT, 'bin/evaluate.mjs');

/**
 * Runs a command and reports its wall time, its process tree's CPU (getrusage), and, sampled twice a
 * second, the largest RSS of one process in the tree over time, the CPU of the sandboxed programs
 * (what the sandbox's forker has reaped from its children) and of the sandbox's own forker and
 * supervisor: the sandbox's tree is never reaped into ours.
 */
const MEASURE = `
import json, os, resource, subprocess, sys, tempfile, time
TICKS = os.sysconf('SC_CLK_TCK')
def stat_fields(pid):
    with open(f'/proc/{pid}/stat') as f:
        s = f.read()
    return s[s.rindex(')') + 2:].split()
def descendants(root):
    kids = {}
    for d in os.listdir('/proc'):
        if d.isdigit():
            try:
                kids.setdefault(int(stat_fields(d)[1]), []).append(int(d))
            except (OSError, IndexError, ValueError):
                pass
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(kids.get(pid, []))
    return out
def rss_kib(pid):
    try:
        with open(f'/proc/{pid}/status') as f:
            for line in f:
                if line.startswith('VmRSS:'):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0
def is_zygote(pid):
    """A Python process running the sandbox's zygote.py (not bwrap, whose arguments name it too)."""
    try:
        with open(f'/proc/{pid}/cmdline', 'rb') as f:
            args = f.read().split(b'\\0')
    except OSError:
        return False
    return b'python' in args[0].rsplit(b'/', 1)[-1] and any(a.endswith(b'zygote.py') for a in args[1:])
extra_pids = [(n, int(p)) for n, p in (e.split(':') for e in os.environ.get('MEASURE_PIDS', '').split(',') if e)]
log = tempfile.TemporaryFile()
t0 = time.perf_counter()
p = subprocess.Popen(sys.argv[1:], stdout=log, stderr=log, stdin=subprocess.DEVNULL)
timeline = []
# The sandbox's own processes: the forker (the zygote bwrap started) and the supervisor (its child;
# the samples are its other children, with the same command line). Their own CPU, and what
# the forker reaped (the samples, and the supervisor at the very end: then counted once).
own, reaped, supervisor_of, supervisor_reaped, command_cpu = {}, {}, {}, {}, {}
while p.poll() is None:
    pids = descendants(p.pid)
    zygotes = {}
    for pid in pids:
        if is_zygote(pid):
            try:
                zygotes[pid] = stat_fields(pid)
            except (OSError, IndexError, ValueError):
                pass
    # Each role's RSS: the command's own processes (Node: the sweep and its workers), the sandbox's
    # processes (summed: the forker, the supervisor and the samples running then), and the
    # processes named in MEASURE_PIDS (the stack's Temporal and SeaweedFS).
    roles = {'command': max([rss_kib(pid) for pid in pids if pid not in zygotes] or [0]), 'sandbox': sum(rss_kib(pid) for pid in zygotes)}
    for name, pid in extra_pids:
        roles[name] = rss_kib(pid)
    # The command's CPU so far (its processes' own and what they reaped; exited ones keep their
    # last reading), so that start-up can be told from the run.
    for pid in pids:
        if pid not in zygotes:
            try:
                f = stat_fields(pid)
                command_cpu[pid] = sum(int(x) for x in f[11:15]) / TICKS
            except (OSError, IndexError, ValueError):
                pass
    timeline.append([time.perf_counter() - t0, max(rss_kib(pid) for pid in pids), roles, sum(command_cpu.values())])
    for pid, f in zygotes.items():
        if int(f[1]) in zygotes:
            continue
        own[pid] = (int(f[11]) + int(f[12])) / TICKS
        reaped[pid] = (int(f[13]) + int(f[14])) / TICKS
        # Samples start their own session; the supervisor stays in the forker's.
        children = sorted((int(g[19]), q) for q, g in zygotes.items() if int(g[1]) == pid and int(g[3]) != q)
        if children:
            supervisor_of[pid] = children[0][1]
        sup = supervisor_of.get(pid)
        if sup in zygotes:
            g = zygotes[sup]
            own[sup] = (int(g[11]) + int(g[12])) / TICKS
        supervisor_reaped[pid] = sup is not None and sup not in zygotes
    time.sleep(0.5)
programs = sum(reaped.values()) - sum(own.get(supervisor_of[f], 0) for f in reaped if supervisor_reaped.get(f) and f in supervisor_of)
dt = time.perf_counter() - t0
if p.returncode != 0:
    log.seek(0); sys.stderr.write(log.read().decode()[-3000:]); sys.exit(p.returncode)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"seconds": dt, "max_rss_kib": ru.ru_maxrss, "cpu_seconds": ru.ru_utime + ru.ru_stime, "sandbox_cpu_seconds": programs, "sandbox_own_cpu_seconds": sum(own.values()), "timeline": timeline}))
`;

interface Measured {
  seconds: number;
  /** Peak RSS of one process in the tree (getrusage). */
  rssMiB: number;
  /** CPU of the tree's processes, sandboxed programs not included. */
  cpuSeconds: number;
  /** CPU of the sandboxed programs. */
  sandboxCpuSeconds: number;
  /** CPU of the sandbox's own processes (forker and supervisor), which the tree's getrusage never sees. */
  sandboxOwnCpuSeconds: number;
  /** [seconds since start, largest RSS of one process in MiB], twice a second. */
  timeline: Array<[number, number]>;
  /** RSS in MiB by role (command, sandbox, and the MEASURE_PIDS), twice a second. */
  roles: Array<[number, Record<string, number>]>;
  /** [seconds since start, CPU seconds of the command's processes so far], twice a second. */
  commandCpu: Array<[number, number]>;
}

/** Asynchronous: the scripted server lives in this process and must keep answering meanwhile. */
async function measure(cmd: string[], pids: Record<string, number | undefined> = {}, env: Record<string, string> = {}): Promise<Measured> {
  const measured = Object.entries(pids).flatMap(([name, pid]) => (pid === undefined ? [] : [`${name}:${pid}`]));
  const { stdout } = await promisify(execFile)(resolvePythonExecutable(), ['-c', MEASURE, ...cmd], {
    encoding: 'utf8',
    env: { ...process.env, ...env, MEASURE_PIDS: measured.join(',') },
    maxBuffer: 64 * 1024 * 1024,
  });
  const r = JSON.parse(stdout.trim().split('\n').pop()!);
  return {
    seconds: r.seconds,
    rssMiB: r.max_rss_kib / 1024,
    cpuSeconds: r.cpu_seconds,
    sandboxCpuSeconds: r.sandbox_cpu_seconds,
    sandboxOwnCpuSeconds: r.sandbox_own_cpu_seconds,
    timeline: r.timeline.map(([t, kib]: [number, number]) => [t, kib / 1024]),
    roles: r.timeline.map(([t, , roles]: [number, number, Record<string, number>]) => [
      t,
      Object.fromEntries(Object.entries(roles).map(([name, kib]) => [name, kib / 1024])),
    ]),
    commandCpu: r.timeline.map(([t, , , cpu]: [number, number, unknown, number]) => [t, cpu]),
  };
}

/**
 * The command's CPU seconds up to `at` seconds into the run, interpolated between the two readings
 * around it (they are half a second apart).
 */
function commandCpuAt(m: Measured, at: number): number {
  const after = m.commandCpu.findIndex(([t]) => t >= at);
  if (after < 0) return m.commandCpu.at(-1)?.[1] ?? 0;
  if (after === 0) return m.commandCpu[0]![1] * (at / Math.max(m.commandCpu[0]![0], 1e-9));
  const [t0, c0] = m.commandCpu[after - 1]!;
  const [t1, c1] = m.commandCpu[after]!;
  return c0 + ((c1 - c0) * (at - t0)) / Math.max(t1 - t0, 1e-9);
}

/** The largest RSS seen up to each quarter of the run, and when the peak came. */
function rssOverTime(m: Measured): string {
  const at = (f: number) => Math.max(0, ...m.timeline.filter(([t]) => t <= f * m.seconds).map(([, mib]) => mib));
  const peak = m.timeline.reduce((a, b) => (b[1] > a[1] ? b : a), [0, 0]);
  return `${[0.25, 0.5, 0.75, 1].map((f) => `${at(f).toFixed(0)}`).join(' / ')} MiB up to 25/50/75/100% of the run (peak at ${((peak[0] / m.seconds) * 100).toFixed(0)}%)`;
}

/**
 * Each role's RSS over the run (MiB): its mean over each tenth of the run, then its peak, and when
 * it came. Flat after warm-up means the later tenths stay level.
 */
function rssCurves(m: Measured): string[] {
  const names = [...new Set(m.roles.flatMap(([, r]) => Object.keys(r)))];
  return names.map((name) => {
    const tenths = Array.from({ length: 10 }, (_, i) => {
      const vals = m.roles.filter(([t]) => t >= (i / 10) * m.seconds && t < ((i + 1) / 10) * m.seconds).map(([, r]) => r[name] ?? 0);
      return vals.length ? (vals.reduce((a, b) => a + b, 0) / vals.length).toFixed(0) : '-';
    });
    const peak = m.roles.reduce<[number, number]>((a, [t, r]) => ((r[name] ?? 0) > a[1] ? [t, r[name]!] : a), [0, 0]);
    return `  ${name}: ${tenths.join(' ')} MiB (mean per tenth of the run); peak ${peak[1].toFixed(0)} MiB at ${((peak[0] / m.seconds) * 100).toFixed(0)}%`;
  });
}

/** Objects and bytes in the bucket (the sweep's share is the difference; other users of the stack add to it). */
async function bucketUsage(bucket: Bucket): Promise<{ objects: number; bytes: number }> {
  let objects = 0;
  let bytes = 0;
  for await (const o of listObjects(bucket, '')) {
    objects++;
    bytes += o.bytes;
  }
  return { objects, bytes };
}

/** The stack's Temporal server and SeaweedFS processes, for their RSS over a run. */
function stackPids(config: ExploraConfig): Record<string, number | undefined> {
  const out: Record<string, number | undefined> = {};
  for (const { name, pid } of stackStatus(config)) if (name === 'temporal' || name === 'seaweedfs') out[name] = pid;
  return out;
}

/**
 * CPU seconds the local stack's Temporal server and SeaweedFS have used so far (their share of a
 * sweep is the difference; other users of the same stack add to it).
 */
function stackCpuSeconds(config: ExploraConfig): { temporal: number; seaweedfs: number } {
  const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  const out = { temporal: 0, seaweedfs: 0 };
  for (const { name, pid } of stackStatus(config)) {
    if (pid === undefined || (name !== 'temporal' && name !== 'seaweedfs')) continue;
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /s, '')
      .split(' ');
    out[name] = (Number(fields[11]) + Number(fields[12])) / ticks;
  }
  return out;
}

/**
 * The whole machine's CPU seconds so far, busy (user, nice, system, irq, softirq: any process, and
 * the kernel for them) and stolen by the hypervisor, from /proc/stat. Over a run, busy minus what
 * the run's own processes used is what everything else took from it.
 */
function machineCpuSeconds(): { busy: number; steal: number } {
  const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return { busy: (user! + nice! + system! + irq! + softirq!) / ticks, steal: (steal ?? 0) / ticks };
}

interface BenchOptions {
  samples: string;
  tasks: string;
  samplesPerRequest: string;
  cpuProfDir?: string;
  small: boolean;
  bare: boolean;
  latencyMs: string;
  endpointConcurrency: string;
}

/** `--latency-ms` and `--endpoint-concurrency`, checked; undefined for an endpoint that answers at once. */
function endpointLimitsOf(opts: BenchOptions): EndpointLimits | undefined {
  const latencyMs = Number(opts.latencyMs);
  const concurrency = Number(opts.endpointConcurrency);
  if (!Number.isFinite(latencyMs) || latencyMs < 0)
    throw new Error(`--latency-ms must be a number of milliseconds >= 0, got ${opts.latencyMs}`);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 1024)
    throw new Error(`--endpoint-concurrency must be an integer from 1 to 1024, got ${opts.endpointConcurrency}`);
  return latencyMs > 0 ? { latencyMs, concurrency } : undefined;
}

/**
 * The sweep's wall time against the fastest it could be, and where the rest went: before the first
 * request (start-up), the endpoint's capacity left idle between the first request and the last
 * answer, and after the last answer (the last tasks' execution and the sweep's end).
 */
function reportAgainstLimit(
  sweep: { seconds: number; startedAt: number; samples: number },
  requests: number,
  limits: EndpointLimits,
  bareRate: number,
  endpoint: ReturnType<typeof limitedEndpoint>,
): void {
  const { llmSeconds, executorSeconds, limitSeconds } = sweepLimit(sweep.samples, requests, limits, bareRate);
  const span = endpoint.span();
  console.log(
    `against the endpoint (${limits.latencyMs} ms an answer, ${limits.concurrency} at once): LLM bound ${llmSeconds.toFixed(1)} s, executor bound ${executorSeconds.toFixed(1)} s (bare rate); sweep ${sweep.seconds.toFixed(1)} s = **${(sweep.seconds / limitSeconds).toFixed(2)}x** its limit (target 1.15)`,
  );
  if (!span) return;
  const before = (span.first - sweep.startedAt) / 1000;
  const answering = (span.last - span.first) / 1000;
  const after = sweep.seconds - before - answering;
  const used = span.busySlotMs / (limits.concurrency * (span.last - span.first));
  console.log(
    `  where it went: ${before.toFixed(1)} s before the first request (start-up), ${answering.toFixed(1)} s from the first request to the last answer (the endpoint ${(used * 100).toFixed(0)}% busy on average, all ${limits.concurrency} slots busy ${((span.saturatedMs / (span.last - span.first)) * 100).toFixed(0)}% of the time; ${span.served} requests served), ${after.toFixed(1)} s after the last answer`,
  );
}

new Command('bench-sweep-overhead')
  .addOption(new Option('--samples <n>', 'samples in the large sweep (the tasks x n)').default('20000'))
  .addOption(
    new Option(
      '--tasks <n>',
      "tasks in the sweeps: HumanEval's first ones, or all 164 and then its tasks again under other ids and prompts (a comment line before each), so that a million samples come as many tasks of a few hundred samples, as in a grid of models x languages; 1 makes all samples one task's",
    ).default('164'),
  )
  .addOption(
    new Option(
      '--samples-per-request <n>',
      "the model's samples_per_request: samples of a task asked for in one request (the API's n)",
    ).default('1'),
  )
  .addOption(
    new Option(
      '--cpu-prof-dir <dir>',
      "write V8 CPU profiles of the large sweep's process (its main thread and the workflow threads: node --cpu-prof) to this folder",
    ),
  )
  .addOption(new Option('--no-small', 'skip the small sweep (a fifth of the size) run first'))
  .addOption(new Option('--no-bare', 'skip the bare executor runs (a sweep alone: memory, history, S3 and wall time)'))
  .addOption(
    new Option(
      '--latency-ms <ms>',
      'each answer takes this long (0: at once); with it the sweep is measured against its limit, the larger of the LLM bound (requests x latency / concurrency) and the executor bound (samples / the bare executor rate)',
    ).default('0'),
  )
  .addOption(
    new Option(
      '--endpoint-concurrency <n>',
      "requests the endpoint serves at once (the rest queue); the sweep's model gets this concurrency",
    ).default('64'),
  )
  .action(async (opts: BenchOptions) => {
    const perRequest = Number(opts.samplesPerRequest);
    if (!Number.isInteger(perRequest) || perRequest < 1 || perRequest > 128)
      throw new Error(`--samples-per-request must be an integer from 1 to 128, got ${opts.samplesPerRequest}`);
    const humaneval = gunzipSync(readFileSync(HUMANEVAL))
      .toString('utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { task_id: string; prompt: string; canonical_solution: string; [field: string]: unknown });
    const taskCount = Number(opts.tasks);
    if (!Number.isInteger(taskCount) || taskCount < 1) throw new Error(`--tasks must be a positive integer, got ${opts.tasks}`);
    // Copies differ in their prompt, so that each is a request of its own (the LLM cache would
    // otherwise answer a copy from its original's answers, and nothing would be sent).
    const problems = Array.from({ length: taskCount }, (_, i) => {
      const p = humaneval[i % humaneval.length]!;
      const copy = Math.floor(i / humaneval.length);
      return copy === 0 ? p : { ...p, task_id: `${p.task_id}/copy-${copy}`, prompt: `# copy ${copy}\n${p.prompt}` };
    });
    const canonical = new Map(problems.map((p) => [p.prompt, p.canonical_solution]));
    const limits = endpointLimitsOf(opts);
    const endpoint = limits ? limitedEndpoint(limits) : undefined;
    const server = await startScriptedLlmServer(
      async (req) => {
        await endpoint?.serve();
        return { content: canonical.get(String(req.body.prompt)) ?? '    pass\n' };
      },
      {
        applyStop: false,
        keepRequests: false,
      },
    );
    const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-overhead-'));
    const env = loadConfig(process.env);
    const bucket: Bucket = { s3: s3ClientFor(env), name: env.s3.bucket };
    const stamp = Date.now().toString(36);
    // The sweep runs with the node flags `npm run sweep` gives it (package.json), as a user runs it.
    const sweepFlags = npmScriptNodeFlags('sweep', 'scripts/start-sweep.ts');
    const dataset = taskCount === humaneval.length ? HUMANEVAL : path.join(dir, 'tasks.jsonl');
    try {
      // Inside the try: a failed write (a full disk) still removes the folder and stops the server.
      if (dataset !== HUMANEVAL) writeFileSync(dataset, problems.map((p) => JSON.stringify(p) + '\n').join(''));
      const runSweep = async (n: number, profile = false) => {
        const id = `overhead-${stamp}-n${n}`;
        const file = path.join(dir, `${id}.yaml`);
        // A model name of its own per run: the LLM cache must not answer for the server.
        writeFileSync(
          file,
          `id: ${id}\ndatasets:\n  - name: humaneval\n    family: humaneval\n    path: ${dataset}\nmodels:\n  - id: instant\n    base_url: ${server.url}\n    model: canonical-${id}\n    api: completions\n    stop: []\n    concurrency: ${limits?.concurrency ?? 8}\n    samples_per_request: ${perRequest}\nmethods: [direct]\ntemperatures: [0.8]\nn_samples: ${n}\nk: [1]\nseed: 1\n`,
        );
        const s3Before = await bucketUsage(bucket);
        const stackBefore = stackCpuSeconds(env);
        const ownBefore = process.cpuUsage();
        const machineBefore = machineCpuSeconds();
        // node --cpu-prof is refused in NODE_OPTIONS: the profiled run is node's own.
        const startSweep = [path.join(PROJECT_ROOT, 'scripts/start-sweep.ts'), '--config', file, '--no-progress'];
        // When the sweep's first LLM request arrives: what the workers spent before it is start-up
        // (loading the code, connecting, the sandbox), which weighs per sample only on small sweeps.
        const requestsBefore = server.received().requests;
        const startedAt = performance.now();
        let firstRequestS: number | undefined;
        const watch = setInterval(() => {
          if (firstRequestS === undefined && server.received().requests > requestsBefore)
            firstRequestS = (performance.now() - startedAt) / 1000;
        }, 50);
        const m = await measure(
          profile && opts.cpuProfDir
            ? [process.execPath, ...sweepFlags, '--cpu-prof', `--cpu-prof-dir=${path.resolve(opts.cpuProfDir)}`, RUN, ...startSweep]
            : [process.execPath, ...sweepFlags, RUN, ...startSweep],
          stackPids(env),
          // Task queues of this run's own: on a stack that other sweeps use, their workers would
          // take some of this sweep's tasks (its CPU then counted nowhere) and this one's theirs.
          { EXPLORA_TASK_QUEUE_PREFIX: `overhead-${stamp}-n${n}` },
        ).finally(() => clearInterval(watch));
        const machine = machineCpuSeconds();
        const own = process.cpuUsage(ownBefore);
        const stackAfter = stackCpuSeconds(env);
        const serverCpuSeconds = (own.user + own.system) / 1e6;
        const s3After = await bucketUsage(bucket);
        const temporalCpuSeconds = stackAfter.temporal - stackBefore.temporal;
        const seaweedCpuSeconds = stackAfter.seaweedfs - stackBefore.seaweedfs;
        return {
          id,
          samples: n * problems.length,
          startedAt,
          ...m,
          startupCpuSeconds: firstRequestS === undefined ? null : commandCpuAt(m, firstRequestS),
          temporalCpuSeconds,
          seaweedCpuSeconds,
          serverCpuSeconds,
          otherCpuSeconds:
            machine.busy -
            machineBefore.busy -
            (m.cpuSeconds + m.sandboxCpuSeconds + m.sandboxOwnCpuSeconds + temporalCpuSeconds + seaweedCpuSeconds + serverCpuSeconds),
          stealSeconds: machine.steal - machineBefore.steal,
          load: os.loadavg()[0]!,
          s3: { objects: s3After.objects - s3Before.objects, bytes: s3After.bytes - s3Before.bytes },
        };
      };

      const nLarge = Math.ceil(Number(opts.samples) / problems.length);
      const nSmall = Math.max(1, Math.round(nLarge / 5));
      const samples = nLarge * problems.length;
      console.log(
        `machine: ${os.cpus().length} cores; ${problems.length} tasks (HumanEval's ${humaneval.length}${problems.length > humaneval.length ? ', then copies' : problems.length < humaneval.length ? ', the first ones' : ''}); sweep sizes n=${nSmall} and n=${nLarge}; load average ${os.loadavg()[0]!.toFixed(2)}`,
      );
      const samplesFile = path.join(dir, 'samples.jsonl');
      if (limits && !opts.bare) throw new Error('--latency-ms needs the bare executor runs (the executor bound): drop --no-bare');
      if (limits && opts.small) throw new Error('--latency-ms measures one sweep against the endpoint: add --no-small');
      if (opts.bare)
        writeFileSync(
          samplesFile,
          problems
            .flatMap((p) =>
              Array.from({ length: nLarge }, () => JSON.stringify({ task_id: p.task_id, completion: p.canonical_solution }) + '\n'),
            )
            .join(''),
        );
      const runBare = async () => {
        const machineBefore = machineCpuSeconds();
        const m = await measure([process.execPath, EVALUATE, '--problems', dataset, '--samples', samplesFile, '--k', '1']);
        const machine = machineCpuSeconds();
        return {
          ...m,
          otherCpuSeconds: machine.busy - machineBefore.busy - (m.cpuSeconds + m.sandboxCpuSeconds + m.sandboxOwnCpuSeconds),
          stealSeconds: machine.steal - machineBefore.steal,
          load: os.loadavg()[0]!,
        };
      };
      /** What else ran meanwhile: a run that shared the cores with other work was slowed by it. */
      const meanwhile = (m: { otherCpuSeconds: number; stealSeconds: number; seconds: number }) =>
        `other processes meanwhile ${m.otherCpuSeconds.toFixed(1)} CPU-s (${((m.otherCpuSeconds / m.seconds) * 100).toFixed(0)}% of a core), stolen by the hypervisor ${m.stealSeconds.toFixed(1)} s`;
      const rate = (m: { seconds: number }) => `${(samples / m.seconds).toFixed(0)} samples/s`;

      const small = opts.small ? await runSweep(nSmall) : null;
      // The bare executor before and after the sweep: other work on the machine comes and goes.
      const bareBefore = opts.bare ? await runBare() : null;
      if (bareBefore)
        console.log(
          `evaluate ${samples} samples: ${bareBefore.seconds.toFixed(1)} s, ${rate(bareBefore)} (bare executor, before the sweep; load ${bareBefore.load.toFixed(2)}; ${meanwhile(bareBefore)})`,
        );
      const large = await runSweep(nLarge, true);
      console.log(
        `sweep    ${samples} samples: ${large.seconds.toFixed(1)} s, ${rate(large)} (${perRequest === 1 ? 'one LLM request per sample' : `LLM requests of ${perRequest} samples`} + S3 cache + sandbox + records, through Temporal; load ${large.load.toFixed(2)}; ${meanwhile(large)})`,
      );
      const bareAfter = opts.bare ? await runBare() : null;
      if (bareAfter)
        console.log(
          `evaluate ${samples} samples: ${bareAfter.seconds.toFixed(1)} s, ${rate(bareAfter)} (bare executor, after the sweep; load ${bareAfter.load.toFixed(2)}; ${meanwhile(bareAfter)})`,
        );

      const ms = (seconds: number) => ((seconds * 1000) / samples).toFixed(1);
      const sweepCpu =
        large.cpuSeconds +
        large.sandboxCpuSeconds +
        large.sandboxOwnCpuSeconds +
        large.temporalCpuSeconds +
        large.seaweedCpuSeconds +
        large.serverCpuSeconds;
      const startup = large.startupCpuSeconds;
      const workersCpu =
        startup === null
          ? ms(large.cpuSeconds)
          : `${ms(large.cpuSeconds)} (start-up ${startup.toFixed(1)} CPU-s before the first LLM request, then ${ms(large.cpuSeconds - startup)} ms per sample)`;
      const sweepCpuLine = `sweep ${ms(sweepCpu)} ms = workers ${workersCpu} + sandboxed programs ${ms(large.sandboxCpuSeconds)} + sandbox's forker and supervisor ${ms(large.sandboxOwnCpuSeconds)} + Temporal server ${ms(large.temporalCpuSeconds)} + SeaweedFS ${ms(large.seaweedCpuSeconds)} + scripted server ${ms(large.serverCpuSeconds)}`;
      if (bareBefore && bareAfter) {
        const bareSeconds = (bareBefore.seconds + bareAfter.seconds) / 2;
        console.log(`ratio sweep/bare: ${(bareSeconds / large.seconds).toFixed(2)} (bare: mean of both runs)`);
        if (limits) reportAgainstLimit(large, Math.ceil(samples / perRequest), limits, samples / bareSeconds, endpoint!);
        const bareCpu =
          (bareBefore.cpuSeconds +
            bareBefore.sandboxCpuSeconds +
            bareBefore.sandboxOwnCpuSeconds +
            bareAfter.cpuSeconds +
            bareAfter.sandboxCpuSeconds +
            bareAfter.sandboxOwnCpuSeconds) /
          2;
        console.log(
          `CPU per sample: ${sweepCpuLine}; ` +
            `evaluate ${ms(bareCpu)} ms = evaluate.ts ${ms((bareBefore.cpuSeconds + bareAfter.cpuSeconds) / 2)} + sandboxed programs ${ms((bareBefore.sandboxCpuSeconds + bareAfter.sandboxCpuSeconds) / 2)} + forker and supervisor ${ms((bareBefore.sandboxOwnCpuSeconds + bareAfter.sandboxOwnCpuSeconds) / 2)}; ratio ${(bareCpu / sweepCpu).toFixed(2)} ` +
            '(Temporal and SeaweedFS count whatever else uses the stack meanwhile)',
        );
      } else {
        console.log(`CPU per sample: ${sweepCpuLine} (Temporal and SeaweedFS count whatever else uses the stack meanwhile)`);
      }
      if (small)
        console.log(
          `small sweep ${small.samples} samples: ${small.seconds.toFixed(1)} s, ${(small.samples / small.seconds).toFixed(0)} samples/s (start-up included, as in every figure here)`,
        );

      const { client, close } = await connectTemporal(env);
      let maxEvents = 0;
      let runs = 0;
      try {
        for await (const wf of client.workflow.list({ query: `WorkflowId STARTS_WITH 'explora-sweep/${large.id}'` })) {
          runs++;
          maxEvents = Math.max(maxEvents, wf.historyLength);
        }
      } finally {
        await close();
      }
      console.log(`workflow runs: ${runs}, largest history: ${maxEvents} events`);
      console.log(
        `S3 written by the sweep: ${large.s3.objects} objects, ${(large.s3.bytes / 2 ** 20).toFixed(1)} MiB; per sample ${(large.s3.objects / samples).toFixed(3)} objects, ${(large.s3.bytes / samples).toFixed(0)} bytes (objects kept at the end: the LLM cache's segments, the shards' records, results and report)`,
      );
      if (small)
        console.log(
          `peak RSS of the sweep process (workers included): ${small.rssMiB.toFixed(0)} MiB at ${small.samples} samples, ${large.rssMiB.toFixed(0)} MiB at ${large.samples} samples`,
        );
      if (small) console.log(`RSS of the sweep process at ${small.samples} samples: ${rssOverTime(small)}`);
      console.log(`RSS of the sweep process at ${large.samples} samples: ${rssOverTime(large)}`);
      console.log(
        `RSS by process over the ${large.samples}-sample sweep (command: the sweep's Node process with its workers; sandbox: its processes summed):`,
      );
      for (const line of rssCurves(large)) console.log(line);
      const received = server.received();
      console.log(
        `scripted server received ${received.requests} requests (${received.repeats} repeating an earlier one) for ${(small?.samples ?? 0) + large.samples} samples`,
      );
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  })
  .parseAsync()
  .catch((err: Error) => {
    console.error(`bench-sweep-overhead: ${err.message}`);
    process.exit(1);
  });
