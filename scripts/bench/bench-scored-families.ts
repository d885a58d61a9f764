/**
 * Scoring time of the families that run nothing (the classification sets, SantaCoder FIM):
 * `bin/evaluate.mjs --problems P --samples S` on N generated rows in each owner's exact format and
 * one sample per row, wall time from the command's start to its end (start-up included), beside a
 * peer command given with --peer (e.g. a Python re-creation of bigcode's task files' scoring) run
 * on the same files, in the same run, alternating.
 *
 *   npx tsx scripts/bench/bench-scored-families.ts [--rows 2000] [--runs 3] [--sets defect,clone,complexity,fim]
 *                                                 [--peer "python3 /tmp/peer.py"]
 *
 * The peer is called as `<peer> <set> <problems.jsonl> <samples.jsonl>` and must print one JSON line
 * of its figures; set `floor-<set>` asks it for the floor (reading and parsing both files only).
 * The peer is not in the repository (docs/benchmarks.md says what it does: public code stays out).
 * Rows: Devign (`id, func, target, project, commit_id`), BigCloneBench (`id, id1, id2, func1, func2,
 * label`), CodeComplex (`src, complexity, problem, from`), santacoder-fim (`name, language, prompt,
 * suffix, canonical_solution, tests`), as JSON Lines; code of the sets' usual sizes (C functions of
 * 0.3-3 kB, Java of 0.5-2 kB, FIM prompts of 0.3-1 kB), from a seeded generator. Samples: answers
 * of every kind the parsers tell apart (YES, NO, sentences, unparseable; classes by name and in Big-O
 * form; FIM lines right and wrong).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Command, InvalidArgumentError } from 'commander';
import { seededUniform } from '../../domain/compare/stats.js';

const SETS = ['defect', 'clone', 'complexity', 'fim'] as const;
type SetName = (typeof SETS)[number];

function positiveInt(flag: string) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${flag}: a whole number >= 1, not "${v}"`);
    return n;
  };
}
function setList(v: string): SetName[] {
  const names = v.split(',').map((s) => s.trim());
  for (const n of names)
    if (!(SETS as readonly string[]).includes(n)) throw new InvalidArgumentError(`--sets: unknown set "${n}" (known: ${SETS.join(', ')})`);
  return names as SetName[];
}

const opts = new Command()
  .option('--rows <n>', 'rows per set', positiveInt('--rows'), 2000)
  .option('--runs <n>', 'timed runs of each command', positiveInt('--runs'), 3)
  .option('--sets <list>', `sets to time (${SETS.join(',')})`, setList, [...SETS])
  .option('--peer <command>', 'peer command, called as <command> <set> <problems> <samples>')
  .parse()
  .opts<{ rows: number; runs: number; sets: SetName[]; peer?: string }>();

const rand = seededUniform(28);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

const C_LINES = [
  'if (!s) return -1;',
  'len = strlen(buf);',
  'memcpy(dst, src, len);',
  'for (i = 0; i < n; i++) sum += a[i];',
  'ret = av_malloc(size);',
  'free(ctx->priv);',
  'while (p != NULL) { p = p->next; count++; }',
  'qemu_mutex_lock(&s->lock);',
];
const JAVA_LINES = [
  'int n = in.nextInt();',
  'for (int i = 0; i < n; i++) { sum += a[i]; }',
  'Map<String, Integer> m = new HashMap<>();',
  'BufferedReader br = new BufferedReader(new InputStreamReader(System.in));',
  'if (x > max) max = x;',
  'Arrays.sort(a);',
  'StringBuilder sb = new StringBuilder();',
  'return result;',
];
/** A function of about `size` characters made of the language's lines. */
function code(lines: readonly string[], header: string, size: number): string {
  let body = '';
  while (body.length < size) body += `    ${pick(lines)}\n`;
  return `${header} {\n${body}}\n`;
}
const between = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo));

const COMPLEXITIES = ['constant', 'logn', 'linear', 'nlogn', 'quadratic', 'cubic', 'np'] as const;
const YES_NO_ANSWERS = [' YES', ' NO', ' No, it frees what it allocates', ' Yes. The buffer overflows', ' There is a defect', ' Perhaps'];
const CLONE_ANSWERS = [' YES', ' NO', ' There is a clone relation', ' no', ' maybe'];
const COMPLEXITY_ANSWERS = [' constant', ' O(n^2)', ' linear', ' O(n log n)', ' The complexity is **cubic**.', ' hard to say', ' np'];

interface Files {
  rows: object[];
  samples: Array<{ task_id: string; completion: string }>;
}

function make(set: SetName, n: number): Files {
  const rows: object[] = [];
  const samples: Files['samples'] = [];
  for (let i = 0; i < n; i++) {
    switch (set) {
      case 'defect':
        rows.push({
          id: i,
          func: code(C_LINES, `static int f${i}(AVCodecContext *avctx, int n)`, between(300, 3000)),
          target: rand() < 0.46,
          project: pick(['FFmpeg', 'qemu']),
          commit_id: (i * 2654435761).toString(16).padStart(40, '0').slice(0, 40),
        });
        samples.push({ task_id: `devign/${i}`, completion: pick(YES_NO_ANSWERS) });
        break;
      case 'clone':
        rows.push({
          id: i,
          id1: 10_000 + 2 * i,
          id2: 10_001 + 2 * i,
          func1: code(JAVA_LINES, `public static void copy${i}(File src, File dst) throws IOException`, between(500, 2000)),
          func2: code(JAVA_LINES, `public void transfer${i}(String a, String b)`, between(500, 2000)),
          label: rand() < 0.37,
        });
        samples.push({ task_id: `bigclonebench/${i}`, completion: pick(CLONE_ANSWERS) });
        break;
      case 'complexity':
        rows.push({
          src: `import java.util.*;\npublic class Main ${code(JAVA_LINES, 'public static void main(String[] args)', between(500, 3000))}`,
          complexity: pick(COMPLEXITIES),
          problem: `${between(1, 1500)}_${pick(['A', 'B', 'C', 'D'])}`,
          from: pick(['CODEFORCES', 'CODECHEF']),
        });
        samples.push({ task_id: `codecomplex/${i}`, completion: pick(COMPLEXITY_ANSWERS) });
        break;
      case 'fim': {
        const name = `humaneval-HumanEval_${i}_f-L${between(5, 40)}`;
        const line = `    total_${i} = x + y`;
        rows.push({
          name,
          language: pick(['py', 'js', 'java'] as const),
          prompt: `def f(x: int, y: int) -> int:\n    """${'Add two numbers x and y. '.repeat(between(10, 40))}\n    """\n`,
          suffix: `\n    return total_${i}\n`,
          canonical_solution: line,
          tests: `\n\ndef check(candidate):\n    assert candidate(2, 3) == 5\n\ncheck(f)\n`,
        });
        // The middle right (equal once stripped) or wrong.
        samples.push({ task_id: name, completion: rand() < 0.5 ? `${line}\n` : '    total = x - y' });
        break;
      }
    }
  }
  return { rows, samples };
}

const jsonl = (xs: readonly object[]) => xs.map((x) => JSON.stringify(x) + '\n').join('');

function timed(argv: string[]): { seconds: number; last: string } {
  const t0 = performance.now();
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', maxBuffer: 64 << 20 });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr.slice(-2000)}`);
  return { seconds, last: r.stdout.trim().split('\n').at(-1) ?? '' };
}

const loadavg = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const ROOT = path.resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-bench-scored-'));
try {
  console.log(`machine: ${os.cpus().length} cores; load average ${loadavg()}; ${opts.rows} rows a set, ${opts.runs} runs`);
  for (const set of opts.sets) {
    const { rows, samples } = make(set, opts.rows);
    const problems = path.join(dir, `${set}.jsonl`);
    const sampleFile = path.join(dir, `${set}-samples.jsonl`);
    writeFileSync(problems, jsonl(rows));
    writeFileSync(sampleFile, jsonl(samples));
    const ours = [process.execPath, path.join(ROOT, 'bin/evaluate.mjs'), '--problems', problems, '--samples', sampleFile];
    // CodeComplex has no bigcode task to compare with (bigcode fine-tunes a classifier): the floor only.
    const peer = opts.peer && set !== 'complexity' ? [...opts.peer.split(' '), set, problems, sampleFile] : undefined;
    const floor = opts.peer ? [...opts.peer.split(' '), `floor-${set}`, problems, sampleFile] : undefined;
    const times: Record<string, number[]> = { ours: [], peer: [], floor: [] };
    const lasts: Record<string, string> = {};
    for (let r = 0; r < opts.runs; r++) {
      for (const [label, argv] of [
        ['ours', ours],
        ['peer', peer],
        ['floor', floor],
      ] as const) {
        if (!argv) continue;
        const { seconds, last } = timed(argv);
        times[label]!.push(seconds);
        lasts[label] = last;
      }
    }
    const mb = (f: string) => (Buffer.byteLength(jsonl(f === 'rows' ? rows : samples)) / 1e6).toFixed(1);
    console.log(`\n${set}: ${rows.length} rows (${mb('rows')} MB), ${samples.length} samples (${mb('samples')} MB); load ${loadavg()}`);
    for (const label of ['ours', 'peer', 'floor']) {
      if (times[label]!.length === 0) continue;
      const sorted = [...times[label]!].sort((a, b) => a - b);
      console.log(`  ${label.padEnd(5)} wall (s): ${sorted.map((s) => s.toFixed(2)).join(' ')}   figures: ${lasts[label]}`);
    }
  }
  console.log(`\nload average after: ${loadavg()}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
