/**
 * TorchDataEval: its release rows loaded (statement tasks made callable, the first canonical
 * answer as the reference), its docs as an unseen library (masked under doc_masking auto), the
 * sweep config entry, and the refusal of a sweep whose sandbox Python lacks torchdata, naming the
 * install command. None of it needs torch: CI does not install it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { librarySnippetLimits, type ApiDoc } from '../../domain/apidocs/library.js';
import { visibleLibrary } from '../../domain/apidocs/masking.js';
import { TORCHDATA_REQUIREMENT, torchdataFamily, TorchDataEntrySchema } from '../../domain/families/torchdata/index.js';
import { familyOf } from '../../domain/families/registry.js';
import { LANGUAGES } from '../../domain/languages/registry.js';
import { loadSweepConfig } from '../../domain/sweep/config.js';
import { resolvePythonExecutable } from '../../infra/sandbox/python.js';
import { requirementsProblem } from '../../scripts/lib/requirements.js';
import { TORCHDATA_ROWS, torchDataJsonl } from '../support/torchdata-rows.js';

const DOCS: ApiDoc[] = [
  {
    import_path: 'torchdata.datapipes.iter.Header',
    name: 'Header',
    signature: 'Header(source_datapipe, limit=10)',
    description:
      'Yields elements from the source DataPipe from the start, up to the specfied limit (functional name: ``header``).\n\nArgs:\n    source_datapipe: the DataPipe from which elements will be yielded\n    limit: the number of elements to yield before stopping',
    examples: [
      '>>> from torchdata.datapipes.iter import IterableWrapper\n>>> dp = IterableWrapper(range(10))\n>>> header_dp = dp.header(3)\n>>> list(header_dp)\n[0, 1, 2]',
    ],
  },
  {
    import_path: 'torchdata.datapipes.iter.Enumerator',
    name: 'Enumerator',
    signature: 'Enumerator(source_datapipe, starting_index=0)',
    description: 'Adds an index to an existing DataPipe through enumeration (functional name: ``enumerate``).',
  },
];
const docsJsonl = DOCS.map((d) => JSON.stringify(d) + '\n').join('');

const entry = TorchDataEntrySchema.parse({
  name: 'torchdata',
  family: 'torchdata',
  path: 'real_torchdata_eval_v3.jsonl.gz',
  api_docs: 'torchdata-api-docs.jsonl',
});
const load = (rows: string) =>
  torchdataFamily.load({
    entry,
    texts: { rows, api_docs: docsJsonl },
    sources: { rows: 'real_torchdata_eval_v3.jsonl.gz', api_docs: 'torchdata-api-docs.jsonl' },
  });

describe('TorchDataEval rows (the release format)', () => {
  it('statement tasks run as check(None); the first canonical answer is the reference; the program is prompt + answer + test', () => {
    const loaded = load(torchDataJsonl(TORCHDATA_ROWS));
    expect(loaded.problems.map((p) => [p.family, p.task_id, p.entry_point, p.form])).toEqual([
      ['torchdata', 'TorchDataEval/0', 'None', 'completion'],
      ['torchdata', 'TorchDataEval/1', 'None', 'completion'],
    ]);
    const first = loaded.problems[0]!;
    expect(first.test).toContain('def check(_candidate=None):\n    assert list(new_dp) == [0, 1, 2, 3]');
    expect(first.test).not.toContain('def check():');
    expect(torchdataFamily.referenceSolution(first)).toBe(`${TORCHDATA_ROWS[0]!.prompt} dp.header(4)`);
    const program = LANGUAGES.python.assemble({
      solution: torchdataFamily.referenceSolution(first)!,
      tests: familyOf(first).tests(first, null),
    });
    expect(program).toBe(`${TORCHDATA_ROWS[0]!.prompt} dp.header(4)\n${first.test}\ncheck(None)`);
    expect(loaded.notes).toEqual([
      'dataset torchdata: real_torchdata_eval_v3.jsonl.gz:1: TorchDataEval/0: reference is answer 2 ("dp.header(4)"): the first, "Header(dp, 4)", calls Header, which the prompt does not import',
      'dataset torchdata: 2 statement completion(s) (entry_point "none", def check():): the test\'s check takes an ignored parameter and entry_point is None, so that check(entry_point) runs them',
    ]);
  });

  it('a chat answer that repeats the unfinished line is the whole script', () => {
    const [first] = load(torchDataJsonl(TORCHDATA_ROWS)).problems;
    const solution = torchdataFamily.solution(
      first!,
      'chat',
      'from torchdata.datapipes.iter import IterableWrapper\ndp = IterableWrapper(range(10))\nnew_dp = dp.header(4)\n',
    );
    expect(solution).toContain('new_dp = dp.header(4)');
    expect(torchdataFamily.solution(first!, 'completions', ' dp.header(4)')).toBe(`${TORCHDATA_ROWS[0]!.prompt} dp.header(4)`);
  });

  it('bad rows and a check with a parameter are named by file and line', () => {
    const [a, b] = torchDataJsonl(TORCHDATA_ROWS).split('\n');
    expect(() => load(`${a}\n${a}\n`)).toThrow('real_torchdata_eval_v3.jsonl.gz:2: duplicate task_id TorchDataEval/0 (first on line 1)');
    const noPrompt = JSON.parse(b!);
    delete noPrompt.prompt;
    expect(() => load(`${a}\n${JSON.stringify(noPrompt)}\n`)).toThrow(/^real_torchdata_eval_v3\.jsonl\.gz:2: prompt: /);
    const withParam = { ...JSON.parse(b!), test: 'def check(candidate):\n    assert True\n' };
    const loaded = load(`${a}\n${JSON.stringify(withParam)}\n`);
    expect(loaded.problems[1]!.entry_point).toBe('None');
    expect(loaded.notes).toContain(
      'dataset torchdata: real_torchdata_eval_v3.jsonl.gz:2: TorchDataEval/1: entry_point is "none" but the test\'s check takes (candidate): called as check(None)',
    );
  });
});

describe('TorchDataEval library', () => {
  it('brings the docs as an unseen library: masked under doc_masking auto (Args and examples gone), whole when off', () => {
    const { library } = load(torchDataJsonl(TORCHDATA_ROWS));
    expect(torchdataFamily.bringsLibrary(entry)).toBe(true);
    expect(library!.library).toMatchObject({ name: 'torchdata', runtime: { kind: 'builtin' }, unseen: true });
    // The methods' own runs (exploration snippets, self-repair) get what importing torch needs; other libraries the defaults.
    expect(librarySnippetLimits(library!.library, 5)).toEqual({ timeoutMs: 10_000, memoryBytes: 4 * 1024 ** 3 });
    expect(librarySnippetLimits(library!.library, 30)).toEqual({ timeoutMs: 30_000, memoryBytes: 4 * 1024 ** 3 });
    expect(librarySnippetLimits({ ...library!.library, sandbox: undefined }, 5)).toEqual({ timeoutMs: 5_000 });
    expect(library!.library.docs).toEqual(DOCS);
    const masked = visibleLibrary(library!, 'auto').library.docs[0]!;
    expect(masked).toEqual({
      import_path: 'torchdata.datapipes.iter.Header',
      name: 'Header',
      signature: 'Header(source_datapipe, limit=10)',
      description: 'Yields elements from the source DataPipe from the start, up to the specfied limit (functional name: ``header``).',
    });
    expect(visibleLibrary(library!, 'off').library.docs).toEqual(DOCS);
    // Planner demos come from the docstrings' own examples: one per doc that has some.
    expect(library!.planner_examples.map((e) => e.id)).toEqual(['doc:torchdata.datapipes.iter.Header']);
  });

  it('a sweep config names the rows and the docs; an unknown key is refused', () => {
    const ok = loadSweepConfig(
      'datasets:\n  - name: torchdata\n    family: torchdata\n    path: data/real_torchdata_eval_v3.jsonl.gz\n    api_docs: ../.tools/torchdata/torchdata-api-docs.jsonl\nmodels: [{id: m, base_url: "http://x/v1", model: m}]\nmethods: [direct]\ntemperatures: [0]\nn_samples: 1\nk: [1]\n',
      'configs/torchdata.yaml',
    );
    expect(ok.datasets[0]).toMatchObject({ family: 'torchdata', api_docs: '../.tools/torchdata/torchdata-api-docs.jsonl' });
    expect(() =>
      loadSweepConfig(
        'datasets:\n  - name: torchdata\n    family: torchdata\n    path: t.jsonl.gz\nmodels: [{id: m, base_url: "http://x/v1", model: m}]\nmethods: [direct]\ntemperatures: [0]\nn_samples: 1\nk: [1]\n',
        'c.yaml',
      ),
    ).toThrow(/api_docs/);
  });
});

describe("the sandbox's Python must have torchdata", () => {
  let bare: string;
  beforeAll(() => {
    // A Python with nothing installed stands for a sandbox where install-torchdata.sh never ran.
    bare = mkdtempSync(join(tmpdir(), 'explora-bare-venv-'));
    execFileSync(resolvePythonExecutable(), ['-m', 'venv', '--without-pip', bare]);
  });
  afterAll(() => rmSync(bare, { recursive: true, force: true }));

  it('refuses naming the dataset, the tasks, the module and the install command', () => {
    const { problems } = load(torchDataJsonl(TORCHDATA_ROWS));
    const python = join(bare, 'bin', 'python');
    const message = requirementsProblem([{ name: 'torchdata', family: 'torchdata', problems }], (p) => familyOf(p).requirements(p), python);
    expect(message).toBe(
      `datasets[torchdata] (family torchdata): 2 TorchDataEval task(s) need the Python module torchdata.datapipes, which the sandbox's Python (${python}) lacks; install it with: bash scripts/install-torchdata.sh`,
    );
    expect(TORCHDATA_REQUIREMENT.install).toBe('bash scripts/install-torchdata.sh');
  });

  it('its programs get the address space importing torch needs (RLIMIT_AS) and at least 10 s', () => {
    const [first] = load(torchDataJsonl(TORCHDATA_ROWS)).problems;
    expect(familyOf(first!).limits(first!, null, 3_000)).toEqual({ timeoutMs: 10_000, memoryBytes: 4 * 1024 ** 3 });
    expect(familyOf(first!).limits(first!, null, 60_000)).toEqual({ timeoutMs: 60_000, memoryBytes: 4 * 1024 ** 3 });
  });
});
