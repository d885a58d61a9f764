/**
 * HumanEvalPack (humanevalpack) on rows in its published format (test/support/humanevalpack-rows.ts)
 * against bigcode's own code written out in test/families/humanevalpack_reference.py: for every
 * variant (synthesize, fixtests, fixdocs), every `--prompt` format bigcode builds for it and both
 * languages, the prompts, stop words, the solutions a model's raw continuations become (the
 * request's stop words applied, then the family's solution) and the programs run (process_results'
 * import helper, the test after a newline) equal bigcode's, diff's and diff-carper's patches applied
 * to the buggy code as bigcode applies them (diff_match_patch, OpenELM's diff_eval); the formats
 * bigcode refuses are refused by name. The runs' outcomes are compared in
 * humanevalpack.e2e.test.ts (the sandbox).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { humanEvalPackFamily, PACK_PROMPTS, PACK_VARIANTS } from '../../domain/families/humanevalpack/index.js';
import DiffMatchPatch from 'diff-match-patch';
import { applyCarperDiff, carperDiffHunk } from '../../domain/families/humanevalpack/carperDiff.js';
import { applyDmpPatch, pyUnquote } from '../../domain/families/humanevalpack/dmpPatch.js';
import { packRemoveLastBlock } from '../../domain/families/humanevalpack/postprocess.js';
import {
  packStopWords,
  refusedPrompt,
  RUN_LANGUAGES,
  type PackPrompt,
  type PackVariant,
  type RunLanguage,
} from '../../domain/families/humanevalpack/prompts.js';
import { LANGUAGES } from '../../domain/languages/registry.js';
import type { Toolchain } from '../../infra/sandbox/process/contract.js';
import { goToolchain } from '../../infra/sandbox/process/toolchains/go.js';
import { javaToolchain } from '../../infra/sandbox/process/toolchains/java.js';
import { classifyRust, rsToolchain } from '../../infra/sandbox/process/toolchains/rs.js';
import { truncateAtStopWords } from '../../domain/llm/extract.js';
import { loadEvaluateProblems, recognizeFamily } from '../../scripts/lib/evaluate-problems.js';
import { requirementsProblem } from '../../scripts/lib/requirements.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import {
  CPP_GENERATIONS,
  CPP_ROWS,
  GO_GENERATIONS,
  GO_ROWS,
  JAVA_GENERATIONS,
  JAVA_ROWS,
  JS_GENERATIONS,
  JS_ROWS,
  jsonl,
  PYTHON_GENERATIONS,
  PYTHON_ROWS,
  RUST_GENERATIONS,
  RUST_ROWS,
} from '../support/humanevalpack-rows.js';

const PYTHON = path.join(PROJECT_ROOT, '.tools/test-python/bin/python');
const SCRIPT = path.resolve(import.meta.dirname, 'humanevalpack_reference.py');

interface Job {
  variant: PackVariant;
  prompt: PackPrompt;
  language: RunLanguage;
  rows: unknown[];
  generations?: string[][];
}
interface Reference {
  prompts: string[];
  stop_words: string[];
  references: string[];
  /** postprocess_generation's output (bigcode's generations.json): diff-carper's diffs (null: not a diff record). */
  postprocessed: (string | null)[][];
  /** What the programs are made of: postprocessed, diff-carper's diffs applied to the buggy code. */
  solutions: string[][];
  programs: string[][];
}

/** bigcode's code, with the diff_match_patch that install-test-python.sh puts beside the venv. */
const runReference = (input: unknown): unknown =>
  JSON.parse(
    execFileSync(PYTHON, [SCRIPT], {
      input: JSON.stringify(input),
      maxBuffer: 1 << 28,
      env: { ...process.env, PYTHONPATH: path.join(PROJECT_ROOT, '.tools/test-python-dmp') },
    }).toString(),
  );
const bigcode = (jobs: Job[]): Reference[] => runReference(jobs) as Reference[];

beforeAll(() => {
  execFileSync('bash', [path.join(PROJECT_ROOT, 'scripts/install-test-python.sh')], { stdio: 'inherit' });
}, 600_000);

const DATA = {
  python: { rows: PYTHON_ROWS, generations: PYTHON_GENERATIONS },
  js: { rows: JS_ROWS, generations: JS_GENERATIONS },
  java: { rows: JAVA_ROWS, generations: JAVA_GENERATIONS },
  go: { rows: GO_ROWS, generations: GO_GENERATIONS },
  cpp: { rows: CPP_ROWS, generations: CPP_GENERATIONS },
  rust: { rows: RUST_ROWS, generations: RUST_GENERATIONS },
} as const satisfies Record<RunLanguage, unknown>;

const load = (job: Omit<Job, 'rows'>) =>
  humanEvalPackFamily.load({
    entry: {
      name: 'hep',
      family: 'humanevalpack',
      path: 'humanevalpack.jsonl',
      language: job.language,
      variant: job.variant,
      prompt: job.prompt,
    },
    texts: { rows: jsonl(DATA[job.language].rows) },
    sources: { rows: 'humanevalpack.jsonl' },
  }).problems;

/** What the sandbox runs before the tests, without the JavaScript line that makes stderr fail the run. */
const programOf = (problem: Parameters<typeof humanEvalPackFamily.embedSolution>[0], solution: string) => {
  const code = humanEvalPackFamily
    .embedSolution(problem, solution)
    .replace(/^for \(const stream of \[process\.stdout, process\.stderr\]\).*\n/, '');
  return LANGUAGES[humanEvalPackFamily.language(problem)].assemble({ solution: code, tests: humanEvalPackFamily.tests(problem, null) });
};

/**
 * The generations as a request with stop words returns them: ended by a stop word (<|endoftext|>,
 * one in every format, where none occurs). A continuation that ended otherwise (the model's end of
 * text, the token limit) is the one place explora and bigcode differ: bigcode right-strips it, explora
 * keeps its trailing whitespace (the same program up to trailing blank lines).
 */
const endedByStopWord = (generations: readonly string[][], stops: readonly string[]) =>
  generations.map((gens) => gens.map((g) => (stops.some((s) => g.includes(s)) ? g : `${g}<|endoftext|>`)));

/**
 * What a model answers to diff-carper (after `<DFF>`), made from each row: the bug's first line
 * fixed with a line of context, the whole buggy body replaced, a header without the space after
 * <DFF>, prose before the first header, a hunk whose text is not in the code, a line that ends the
 * diff, another record after it, git's no-newline marker, a hunk with no context, nothing.
 */
function carperContinuations(row: { buggy_solution: string; canonical_solution: string }): string[] {
  const buggy = row.buggy_solution.split('\n');
  const fixed = row.canonical_solution.split('\n');
  const at = Math.max(
    1,
    buggy.findIndex((line, i) => line !== fixed[i]),
  );
  const oneLine = ` @@ -${at},2 +${at},2 @@\n ${buggy[at - 1]}\n-${buggy[at]}\n+${fixed[at] ?? ''}\n`;
  const whole = ` @@ -1,${buggy.length} +1,${fixed.length} @@\n${buggy.map((l) => `-${l}`).join('\n')}\n${fixed.map((l) => `+${l}`).join('\n')}\n`;
  return [
    oneLine,
    whole,
    `\n${oneLine.slice(1)}`,
    ` The fix:\n${oneLine.slice(1)}`,
    ` @@ -1 +1 @@\n-not in the code\n+return 0\n${oneLine.slice(1)}`,
    `${oneLine}That is all.\n+more`,
    `${oneLine}<NME> other.py\n`,
    `${whole}\\ No newline at end of file\n`,
    ` @@ -0,0 +1 @@\n+// added\n${oneLine.slice(1)}`,
    '',
  ];
}

/**
 * What a model answers to diff (after `<commit_after>`), made from each row: diff_match_patch's
 * patch from the buggy to the fixed code (what bigcode's format expects), without its leading
 * newline, with its place off by some characters, against text not in the code; prose; nothing;
 * a hand-written patch with a `%` that starts no escape.
 */
function dmpContinuations(row: { buggy_solution: string; canonical_solution: string }): string[] {
  const dmp = new DiffMatchPatch();
  const patch = dmp.patch_toText(dmp.patch_make(row.buggy_solution, row.canonical_solution));
  const shifted = patch.replace(/^@@ -(\d+)/, (_, n: string) => `@@ -${Number(n) + 7}`);
  return [
    `\n${patch}`,
    patch,
    `\n${shifted}`,
    '\n@@ -1,9 +1,9 @@\n-not in the code\n+return 0;\n',
    ' Here is the fix.',
    '',
    '\n@@ -1,3 +1,3 @@\n x %25 2\n-x % 3\n+x %23 2\n',
  ];
}

describe("HumanEvalPack against bigcode's humanevalpack.py", () => {
  const jobs: Job[] = [];
  for (const language of RUN_LANGUAGES)
    for (const variant of PACK_VARIANTS)
      for (const prompt of PACK_PROMPTS)
        if (refusedPrompt(prompt, variant) === null)
          jobs.push({
            variant,
            prompt,
            language,
            rows: DATA[language].rows,
            generations: endedByStopWord(
              prompt === 'diff-carper'
                ? DATA[language].generations.map((gens, t) => [...gens, ...carperContinuations(DATA[language].rows[t]!)])
                : prompt === 'diff'
                  ? DATA[language].generations.map((gens, t) => [...gens, ...dmpContinuations(DATA[language].rows[t]!)])
                  : DATA[language].generations,
              packStopWords(language, prompt),
            ),
          });

  it("covers every format bigcode builds for each variant, in all six of bigcode's languages", () => {
    // 19 generic formats for each variant; continue only for synthesize; file, issue, diff and diff-carper only for Fix.
    expect(jobs.length).toBe(6 * (19 + 22 + 22));
  });

  it("every prompt, stop word list, solution and program is bigcode's", () => {
    const references = bigcode(jobs);
    jobs.forEach((job, j) => {
      const reference = references[j]!;
      const problems = load(job);
      const what = `${job.language} ${job.variant} ${job.prompt}`;
      expect(
        problems.map((p) => p.prompt),
        what,
      ).toEqual(reference.prompts);
      const stops = humanEvalPackFamily.stopWords({ language: job.language, prompt: job.prompt } as never);
      expect(stops, what).toEqual(reference.stop_words);
      const solutions = problems.map((p, t) =>
        job.generations![t]!.map((g) => humanEvalPackFamily.solution(p, 'completions', truncateAtStopWords(g, stops))),
      );
      expect(solutions, what).toEqual(reference.solutions);
      const programs = problems.map((p, t) => solutions[t]!.map((s) => programOf(p, s)));
      expect(programs, what).toEqual(reference.programs);
      // A saved generation (bigcode's generations.json) is already post-processed: it runs as it is
      // (diff-carper's diff applied first; bigcode's None saved as null, read as an empty text).
      expect(
        problems.map((p, t) => reference.postprocessed[t]!.map((g) => humanEvalPackFamily.solution(p, 'saved', g ?? ''))),
        what,
      ).toEqual(reference.solutions);
    });
  }, 120_000);

  it('the post-processing edge cases bigcode handles: column-0 lines, brace counting, Java’s two braces', () => {
    // Python: the first non-indented line ends the function, with or without a stop word.
    expect(packRemoveLastBlock('\n    return 1\nx = 2', 'python', [])).toBe('\n    return 1');
    expect(packRemoveLastBlock('    return 1\n\n    ', 'python', [])).toBe('    return 1\n\n    ');
    // JavaScript: cut where the function's brace closes; never closed: up to the last brace.
    expect(packRemoveLastBlock('\n  if (a) { b }\n}\nconst c = () => {}', 'js', [])).toBe('\n  if (a) { b }\n}');
    expect(packRemoveLastBlock('\n  if (a) { b }\n  return 1;', 'js', [])).toBe('\n  if (a) { b }');
    expect(packRemoveLastBlock('\n  return 1;', 'js', [])).toBe('\n  return 1;');
    // Java's class brace: two to close; a main method cut off.
    expect(packRemoveLastBlock('\n  return 1;\n }\n}\nclass X {}', 'java', [])).toBe('\n  return 1;\n }\n}');
    expect(packRemoveLastBlock('\n  return 1;\n }\n public static void main() {', 'java', [])).toBe('\n  return 1;\n }\n }');
  });

  it("diff-carper's diff applied as OpenELM's diff_eval.apply_diff applies it, its edge cases included", () => {
    const code = 'def f(x):\n    y = x + 1\n    return y\n\ndef g(x):\n    return f(x) * 2\n';
    const cases: [string, string][] = [
      // one hunk; two hunks in order; the second hunk's text only before the first's change (skipped)
      [code, '@@ -2,2 +2,2 @@\n     y = x + 1\n-    return y\n+    return y - 1\n'],
      [code, '@@ -2 +2 @@\n-    y = x + 1\n+    y = x\n@@ -6 +6 @@ def g\n-    return f(x) * 2\n+    return f(x) * 3\n'],
      [code, '@@ -6 +6 @@\n-    return f(x) * 2\n+    return 0\n@@ -2 +2 @@\n-    y = x + 1\n+    y = x\n'],
      // text not in the code; text ending inside a line (rejected); text ending at the end of the file
      [code, '@@ -2 +2 @@\n-    y = x + 2\n+    y = x\n'],
      [code, '@@ -2 +2 @@\n-    y = x\n+    y = 0\n'],
      ['a\nb', '@@ -2 +2 @@\n-b\n+c\n'],
      // no context: put before the file as the first change only
      [code, '@@ -0,0 +1 @@\n+import os\n@@ -0,0 +1 @@\n+import sys\n'],
      [code, '@@ -2 +2 @@\n-    y = x + 1\n+    y = x\n@@ -0,0 +1 @@\n+import sys\n'],
      // prose before the first header shifts hunks and headers; a header at the very end; no header at all
      [code, 'fix:\n@@ -2 +2 @@\n-    y = x + 1\n+    y = x\n'],
      [code, '@@ -2 +2 @@\n-    y = x + 1\n+    y = x\n@@ -6 +6 @@'],
      [code, '-    y = x + 1\n+    y = x\n'],
      // git's marker removed; lines starting otherwise ignored; blank lines without their space dropped; a \r in the header
      [code, '@@ -3 +3 @@\n-    return y\n\\ No newline at end of file\n+    return -y\n'],
      [code, '@@ -1,2 +1,2 @@\n def f(x):\n*note\n\n-    y = x + 1\n+    y = x + 2\n'],
      [code, '@@ -2 +2 @@\r\n-    y = x + 1\n+    y = 2\n'],
      // characters beyond the BMP (UTF-16 pairs in JavaScript, one code point in Python); a new file
      ['s = "\u{1F600}\u{1F600}"\nt = 1\n', '@@ -2 +2 @@\n-t = 1\n+t = "\u{1F600}"\n'],
      ['ADDFILE', '@@ -0,0 +1,2 @@\n+a\n+b\n'],
    ];
    const records = [
      '<NME> f.py\n<BEF> x\n<MSG> Fix\n<DFF> @@ -1 +1 @@\n-x\n+y\n',
      '<NME> f.py\n<BEF> x\n<MSG> Fix\n<DFF>\n@@ -1 +1 @@\n-x\n+y\n',
      '<NME> f\r.py\n<BEF> a\n<MSG> b\n<MSG> c\n<DFF> d\n<DFF> e',
    ];
    const reference = runReference({ apply_diff: cases, split_diff: records }) as { applied: string[]; split: { diff?: string }[] };
    expect(cases.map(([file, hunk]) => applyCarperDiff(file, hunk))).toEqual(reference.applied);
    // What bigcode's split_diff finds as the diff is what carperDiffHunk starts from (none: not a record).
    const hunks = records.map((r) => carperDiffHunk('', r, 'js', []));
    expect(hunks).toEqual(reference.split.map((r) => (r.diff === undefined ? '' : r.diff.split(/\n[^ +-@]+/)[0])));
    expect(hunks[1]).toBe('');
    // An empty diff is an empty program, whatever the buggy code.
    expect(applyCarperDiff(code, '')).toBe('');
  });

  it("diff's patch applied as bigcode's diff_match_patch applies it, its edge cases included", () => {
    const code = 'def f(x):\n    y = x % 2\n    return y # é\n\ndef g(x):\n    return f(x) * 2\n';
    const dmp = new DiffMatchPatch();
    const made = dmp.patch_toText(dmp.patch_make(code, code.replace('x % 2', 'x % 3').replace('* 2', '* 4')));
    const cases: [string, string][] = [
      // a patch as diff_match_patch writes it; after blank lines and spaces; its place off; its context gone
      [code, made],
      [code, `\n \n\t${made}`],
      [code, made.replace(/@@ -(\d+)/, (_, n: string) => `@@ -${Number(n) + 30}`)],
      ['something else entirely\n', made],
      // Python's unquote: a % that starts no escape kept, %23 and UTF-8 escapes decoded, bad bytes replaced, a BOM kept
      [code, '@@ -14,9 +14,9 @@\n  x \n-% 2\n+% 5\n %0A    r\n'],
      [code, '@@ -14,9 +14,9 @@\n  x \n-%25 2\n+%23 %C3%A9 %C3%28 %E2%82 %EF%BB%BF%zz\n %0A    r\n'],
      // no length (1), length 0, two patches, a blank line inside, a line starting otherwise, a bad header
      [code, '@@ -1 +1 @@\n-d\n+D\n@@ -1,0 +1,1 @@\n+#\n'],
      [code, '@@ -62,7 +62,7 @@\n  f(x) \n-* 2\n+* 3\n\n'],
      [code, '@@ -1,4 +1,4 @@\n-def \n+fed \n*note\n'],
      [code, '@@ -1,4 +1,4 @@ def f\n-def \n+fed \n'],
      [code, '--- a/f.py\n+++ b/f.py\n@@ -1,3 +1,3 @@\n'],
      // nothing at all: the code as it is
      [code, ''],
      [code, ' \n '],
    ];
    const reference = runReference({ apply_diff: [], split_diff: [], patch: cases }) as { patched: string[] };
    expect(cases.map(([buggy, patch]) => applyDmpPatch(buggy, patch))).toEqual(reference.patched);
    // The cases reach each outcome: fixed, partly fixed, left as is, an empty program.
    expect(reference.patched[0]).toBe(code.replace('x % 2', 'x % 3').replace('* 2', '* 4'));
    expect(reference.patched).toContain('');
    expect(reference.patched[11]).toBe(code);
    expect(pyUnquote('%zz %41 %c3%a9 é%41')).toBe('%zz A é éA');
  });

  it('refuses the formats it cannot run, by name, before anything runs', () => {
    const entry = (prompt: string, variant = 'synthesize') =>
      humanEvalPackFamily.entrySchema.safeParse({
        name: 'h',
        family: 'humanevalpack',
        path: 'h.jsonl',
        language: 'python',
        variant,
        prompt,
      });
    expect(entry('instruct').success).toBe(true);
    expect(entry('diff').success).toBe(true);
    expect(JSON.stringify(entry('edit').error?.issues)).toContain('ValueError');
    expect(JSON.stringify(entry('octogeeex').error?.issues)).toContain("bigcode's HumanEvalPack prompts");
    expect(
      humanEvalPackFamily.entrySchema.safeParse({ name: 'h', family: 'humanevalpack', path: 'h.jsonl', language: 'kotlin' }).error?.message,
    ).toContain('must be one of the HumanEvalPack languages: python, js, java, go, cpp, rust');
    expect(() => load({ language: 'python', variant: 'fixtests', prompt: 'continue' })).toThrow(/HumanEvalSynthesize only/);
    expect(() => load({ language: 'python', variant: 'synthesize', prompt: 'issue' })).toThrow(/HumanEvalFix format/);
    expect(() => load({ language: 'js', variant: 'synthesize', prompt: 'diff-carper' })).toThrow(/HumanEvalFix format/);
  });
});

describe("evaluate.ts's reading of HumanEvalPack files", () => {
  it('recognizes the rows, reads bigcode task names through --subset, and checks the language', () => {
    const text = jsonl(JS_ROWS);
    expect(recognizeFamily(text, 'h.jsonl')).toBe('humanevalpack');
    const read = (options: Record<string, unknown>, t = text) =>
      loadEvaluateProblems({ text: t, source: 'h.jsonl', family: 'humanevalpack', options });
    const fix = read({ subset: 'fixtests-js', prompt: 'octocoder' }).problems;
    expect(fix[0]!.prompt.startsWith('Question: Fix bugs in hasCloseElements.\n')).toBe(true);
    expect(read({}).problems[0]!.prompt.startsWith('Write a JavaScript function')).toBe(true);
    expect(() => read({ subset: 'synthesize-python' })).toThrow(/holds js rows/);
    expect(() => read({ subset: 'explaindescribe-js' })).toThrow(/family humanevalexplain/);
    expect(() => read({ prompt: 'diff', subset: 'synthesize-js' })).toThrow(/HumanEvalFix format/);
    expect(
      read({ prompt: 'diff', subset: 'fixtests-js' }).problems[0]!.prompt.endsWith(
        '<commit_msg>Fix bugs in hasCloseElements.<commit_after>',
      ),
    ).toBe(true);
    expect(read({}, jsonl(GO_ROWS)).problems[0]!.prompt.startsWith('Write a Go function')).toBe(true);
    expect(() => read({}, jsonl([{ ...JS_ROWS[0], task_id: 'Kotlin/0' }]))).toThrow(/names no HumanEvalPack language/);
    expect(() => read({}, jsonl([JS_ROWS[0], { ...JS_ROWS[1], task_id: 'Python/2' }]))).toThrow(
      /h\.jsonl:2: task_id: "Python\/2" is not a js row/,
    );
    const task = humanEvalPackFamily.evaluate.kind === 'reads' ? humanEvalPackFamily.evaluate.bigcodeTasks! : undefined;
    expect(task!.read('humanevalfixtests-js')).toEqual({ options: { subset: 'fixtests-js' } });
    expect(task!.read('humanevalsynthesize-python')).toEqual({ options: { subset: 'synthesize-python' } });
    expect(task!.read('humaneval')).toBeNull();
  });
});

describe("what HumanEvalPack's compiled languages need beside their compilers", () => {
  it('names the missing part, which tasks need it and the command that installs it, before anything runs', () => {
    const datasets = (['cpp', 'go', 'rust', 'java'] as const).map((language) => ({
      name: `synthesize-${language}`,
      family: 'humanevalpack',
      problems: load({ language, variant: 'synthesize', prompt: 'instruct' }),
    }));
    const requirementsOf = (p: Parameters<typeof humanEvalPackFamily.requirements>[0]) => humanEvalPackFamily.requirements(p);
    const missing = requirementsProblem(datasets, requirementsOf as never, undefined, (part) => `the part ${part}`);
    expect(missing!.split('\n')).toEqual([
      "datasets[synthesize-cpp] (family humanevalpack): 2 HumanEvalPack's C++ programs (bigcode's import helper includes <boost/any.hpp>) task(s) need the part boost-headers, which is not installed; install it with: bash scripts/install-toolchains.sh cpp",
      "datasets[synthesize-go] (family humanevalpack): 2 HumanEvalPack's Go tests (they import testify) task(s) need the part go-testify, which is not installed; install it with: bash scripts/install-toolchains.sh go_test.go",
      "datasets[synthesize-rust] (family humanevalpack): 2 HumanEvalPack's Rust programs (their declarations use rand, regex and md5) task(s) need the part rust-crates, which is not installed; install it with: bash scripts/install-toolchains.sh rs",
    ]);
    expect(requirementsProblem(datasets, requirementsOf as never, undefined, () => null)).toBeNull();
  });
});

describe("the sandbox toolchains: HumanEvalPack's programs as code_eval_octopack runs them, MultiPL-E's as before", () => {
  const limits = { timeoutMs: 10_000, memoryBytes: 1 << 30, maxProcesses: 64, maxFileBytes: 1 << 20, maxOutputBytes: 1 << 20 };
  const programOfRow = (language: RunLanguage, row: (typeof DATA)[RunLanguage]['rows'][number]) => {
    const problem = load({ language, variant: 'synthesize', prompt: 'instruct' }).find((p) => p.task_id === row.task_id)!;
    return programOf(problem, humanEvalPackFamily.solution(problem, 'completions', row.canonical_solution));
  };
  const argv = (step: ReturnType<Toolchain['compile']>) => (step?.kind === 'sandbox' ? step.argv.join(' ') : '');

  it('Java: a public class Main is compiled from Main.java with a launcher; a MultiPL-E class Problem as before', () => {
    const java = javaToolchain();
    const program = programOfRow('java', JAVA_ROWS[0]!);
    expect(Object.keys(java.files(program)).sort()).toEqual(['Main.java', 'Problem.java']);
    expect(java.files(program)['Problem.java']).toContain('setDefaultAssertionStatus(false)');
    expect(argv(java.compile(limits, program))).toMatch(/ Main\.java Problem\.java$/);
    const multiple = 'class Problem {\n    public static void main(String[] args) {}\n}\n';
    expect(java.files(multiple)).toEqual({ 'Problem.java': multiple });
    expect(argv(java.compile(limits, multiple))).toMatch(/ -d \/build Problem\.java$/);
  });

  it('Rust: a #[test] program is checked as a binary, then built as its test harness with the crates; fn main programs as before', () => {
    const rs = rsToolchain();
    const harness = argv(rs.compile(limits, programOfRow('rust', RUST_ROWS[0]!)));
    expect(harness).toMatch(/^\/bin\/sh -c .*--emit=metadata -o program\.check program\.rs && .* --test -o program program\.rs$/);
    expect(harness).toMatch(/--extern rand=\S+librand-\w+\.rlib --extern regex=\S+ --extern md5=\S+/);
    expect(argv(rs.compile(limits, 'fn main() { assert_eq!(1, 1); }\n'))).toMatch(/rustc --edition 2021 -o program program\.rs$/);
    // The harness's failed test: its panic is on stdout.
    const failed = classifyRust({
      exitCode: 101,
      signal: null,
      timedOut: false,
      durationMs: 1,
      stdout: "thread 'tests::t' panicked at program.rs:3:5:\nassertion `left == right` failed\n\ntest result: FAILED. 0 passed; 1 failed",
      stderr: 'error: test failed',
      stdoutBytes: 0,
      stderrBytes: 0,
      survivors: 0,
    });
    expect(failed.status).toBe('failed');
  });

  it('Go: a testify program gets the pinned module files and the testify build cache; a std-only one as before', () => {
    const go = goToolchain();
    const program = programOfRow('go', GO_ROWS[0]!);
    expect(Object.keys(go.files(program)).sort()).toEqual(['go.mod', 'go.sum', 'program_test.go']);
    expect(go.files(program)['go.mod']).toContain('github.com/stretchr/testify v1.8.4');
    const step = go.compile(limits, program);
    expect(step?.kind === 'sandbox' && step.env.GOCACHE).toBe('/opt/octopack-gocache');
    const multiple = 'package add_test\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {}\n';
    expect(Object.keys(go.files(multiple))).toEqual(['program_test.go']);
    const plain = go.compile(limits, multiple);
    expect(plain?.kind === 'sandbox' && plain.env.GOCACHE).toBe('/opt/gocache');
  });
});
