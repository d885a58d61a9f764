/**
 * What running sweeps have stored must stay readable and what new sweeps store must not change
 * (docs/workflow-versions.md): a fixed config's hash, and for fixed rows of every family the
 * stored problems' bytes (prepareSweepDataset's JSONL) and what every step makes of them once read
 * back (prompts, programs, limits, scores). The pinned values were computed with the code before
 * families owned their problem payloads (main at 9d2f934).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { SweepProblemSchema, type SweepProblem } from '../../domain/datasets/problems.js';
import { parseJsonl } from '../../domain/datasets/jsonl.js';
import { FAMILIES, FAMILY_IDS, familyOf, type FamilyId } from '../../domain/families/registry.js';
import type { TaskChecking } from '../../domain/families/types.js';
import { generateLines } from '../../domain/pbe/generate.js';
import { resolvePbeParams } from '../../domain/pbe/params.js';
import { parseSweepConfig, sweepConfigHash } from '../../domain/sweep/config.js';
import { APPS_TASKS, appsJsonl } from '../support/apps-rows.js';
import { DS1000_SCIPY_TASK, DS1000_TASKS, ds1000InsertionJsonl, ds1000Jsonl } from '../support/ds1000-rows.js';
import { Ds1000EntrySchema } from '../../domain/families/ds1000/index.js';
import { SantaCoderFimEntrySchema } from '../../domain/families/santacoder-fim/index.js';
import { FIM_ROWS, fimJsonl } from '../support/santacoder-fim-rows.js';
import { HUMANEVAL_PLUS_TASKS, MBPP_PLUS_TASKS, jsonl as evalplusJsonl } from '../support/evalplus-rows.js';
import { addRow, jsonl as multiplEJsonl } from '../support/multiple-rows.js';
import { TORCHDATA_ROWS, torchDataJsonl } from '../support/torchdata-rows.js';
import { GSM8K_ROWS, GSM_HARD_ROWS, palJsonl } from '../support/pal-rows.js';
import { CLONE_ROWS, COMPLEXITY_ROWS, DEFECT_ROWS, jsonl as classificationJsonl } from '../support/classification-rows.js';
import { CONALA_ROWS, CONCODE_ROWS, jsonl as oneLineJsonl, SPIDER_ROWS } from '../support/oneline-rows.js';
import { CODE_TO_TEXT_ROWS, codeToTextJsonl } from '../support/code-to-text-rows.js';
import { CodeToTextEntrySchema } from '../../domain/families/code-to-text/index.js';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const REF = path.join(import.meta.dirname, '..', '..', '..', 'shared', 'reference');

const HE_ROWS = [
  {
    task_id: 'T/0',
    prompt: 'def f(x):\n    """Twice x."""\n',
    entry_point: 'f',
    test: 'def check(c):\n    assert c(1) == 2\n',
    canonical_solution: '    return 2 * x\n',
  },
  { task_id: 'T/1', prompt: 'def g(s):\n    """s reversed."""\n', entry_point: 'g', test: 'def check(c):\n    assert c("ab") == "ba"\n' },
];
const MBPP_ROWS = [2, 3, 4, 11, 12].map((id) => ({
  task_id: id,
  text: `Write a function for task ${id}.`,
  code: `def task_${id}(a):\r\n    return a + ${id}`,
  test_setup_code: id === 12 ? 'import math' : '',
  test_list: [`assert task_${id}(1) == ${id + 1}`, `assert task_${id}(0) == ${id}`],
  challenge_test_list: [],
}));
const PBE = { count: 3, seed: 11 };
const DOCS =
  JSON.stringify({
    import_path: 'torchdata.datapipes.iter.Header',
    name: 'Header',
    signature: 'Header(dp, limit=10)',
    description: 'The first items.',
  }) + '\n';

/** One dataset per family, each with its options spelled out where it has them. */
const CONFIG = {
  datasets: [
    { name: 'he', family: 'humaneval', path: 'he.jsonl' },
    {
      name: 'he-full',
      family: 'humaneval',
      path: 'he.jsonl',
      program_form: 'full_program',
      library: { api_docs: 'docs.jsonl', name: 'lib', summary: 'A library.' },
    },
    { name: 'pbe', family: 'pbe-world', pbe_world: PBE },
    {
      name: 'monkey',
      family: 'renamed-library',
      path: 'm.jsonl.gz',
      library: { private_library: 'monkey', keywords: 'k.jsonl', mapping: 'm.json' },
    },
    { name: 'mbpp', family: 'mbpp', path: 'mbpp.jsonl', split: 'all', prompt: 'three-shot' },
    { name: 'heplus', family: 'evalplus', path: 'HumanEvalPlus.jsonl.gz', variant: 'humaneval' },
    { name: 'mbppplus', family: 'evalplus', path: 'MbppPlus.jsonl', variant: 'mbpp', min_time_limit: 2 },
    { name: 'apps', family: 'apps', path: 'test.jsonl', difficulty: ['interview'], stdin_form: 'as-written' },
    { name: 'ds', family: 'ds1000', path: 'ds1000.jsonl', libraries: ['Numpy'] },
    { name: 'js', family: 'multipl-e', path: 'humaneval-js.jsonl', language: 'js' },
    { name: 'td', family: 'torchdata', path: 'td.jsonl', api_docs: 'td-docs.jsonl' },
  ],
  models: [
    { id: 'm', base_url: 'http://127.0.0.1:8080/v1', model: 'x' },
    { id: 'c', base_url: 'http://127.0.0.1:8080/v1', model: 'y', api: 'completions' },
  ],
  methods: ['direct'],
  temperatures: [0.2],
  n_samples: 1,
  k: [1],
};

/** Each family's dataset entry (as the config resolves it) and the texts of its files. */
function fixtures(): Array<{ family: FamilyId; entry: unknown; texts: Record<string, string> }> {
  const config = parseSweepConfig(CONFIG);
  const entry = (name: string) => config.datasets.find((d) => d.name === name)!;
  const heRows = HE_ROWS.map((r) => JSON.stringify(r) + '\n').join('');
  const monkey = gunzipSync(readFileSync(path.join(REF, 'private-library', 'real_monkey_eval_v3.jsonl.gz'))).toString('utf8');
  return [
    { family: 'humaneval', entry: entry('he'), texts: { rows: heRows } },
    { family: 'humaneval', entry: { ...entry('he'), program_form: 'full_program' }, texts: { rows: heRows } },
    { family: 'pbe-world', entry: entry('pbe'), texts: { rows: [...generateLines(resolvePbeParams(PBE), 0, 3)].join('') } },
    {
      family: 'renamed-library',
      entry: entry('monkey'),
      texts: {
        rows: monkey.split('\n').slice(0, 12).join('\n') + '\n',
        keywords: readFileSync(path.join(REF, 'private-library', 'pandas_keywords.jsonl'), 'utf8'),
        mapping: readFileSync(path.join(REF, 'private-library', 'pandas_keyword_mapping.json'), 'utf8'),
      },
    },
    { family: 'mbpp', entry: entry('mbpp'), texts: { rows: MBPP_ROWS.map((r) => JSON.stringify(r) + '\n').join('') } },
    { family: 'evalplus', entry: entry('heplus'), texts: { rows: evalplusJsonl(HUMANEVAL_PLUS_TASKS) } },
    { family: 'evalplus', entry: entry('mbppplus'), texts: { rows: evalplusJsonl(MBPP_PLUS_TASKS) } },
    { family: 'apps', entry: { ...entry('apps'), difficulty: undefined }, texts: { rows: appsJsonl(APPS_TASKS) } },
    {
      family: 'apps',
      entry: { ...entry('apps'), difficulty: undefined, stdin_form: 'testing-util' },
      texts: { rows: appsJsonl(APPS_TASKS) },
    },
    {
      family: 'ds1000',
      entry: { ...entry('ds'), libraries: undefined },
      texts: { rows: ds1000Jsonl([...DS1000_TASKS, DS1000_SCIPY_TASK]) },
    },
    { family: 'multipl-e', entry: entry('js'), texts: { rows: multiplEJsonl([addRow('js', 1), addRow('js', 2)]) } },
    { family: 'torchdata', entry: entry('td'), texts: { rows: torchDataJsonl(TORCHDATA_ROWS), api_docs: DOCS } },
    // Families added after CONFIG was pinned: their entries here, so that its hash stays.
    { family: 'pal', entry: { name: 'gsm8k', family: 'pal', path: 'test.jsonl' }, texts: { rows: palJsonl(GSM8K_ROWS) } },
    { family: 'pal', entry: { name: 'gsm-hard', family: 'pal', path: 'gsmhardv2.jsonl' }, texts: { rows: palJsonl(GSM_HARD_ROWS) } },
    // Not in CONFIG (whose hash is pinned): the entries as the config would resolve them.
    ...(
      [
        ['complexity', COMPLEXITY_ROWS],
        ['clone', CLONE_ROWS],
        ['defect', DEFECT_ROWS],
      ] as const
    ).map(([task, rows]) => ({
      family: 'classification' as const,
      entry: { name: task, family: 'classification', task, path: `${task}.jsonl` },
      texts: { rows: classificationJsonl(rows) },
    })),
    // Families added after CONFIG was pinned: their entries are parsed apart, so its hash stays.
    ...(['conala', 'concode', 'spider'] as const).map((family) => ({
      family,
      entry: parseSweepConfig({ ...CONFIG, datasets: [{ name: family, family, path: `${family}.parquet` }] }).datasets[0]!,
      texts: { rows: oneLineJsonl({ conala: CONALA_ROWS, concode: CONCODE_ROWS, spider: SPIDER_ROWS }[family]) },
    })),
    ...(['python', 'python-left', 'go'] as const).map((subset) => ({
      family: 'code-to-text' as const,
      entry: CodeToTextEntrySchema.parse({ name: 'ctt', family: 'code-to-text', path: 'test.parquet', subset }),
      texts: { rows: codeToTextJsonl(CODE_TO_TEXT_ROWS[subset === 'go' ? 'go' : 'python']) },
    })),
    // DS-1000 in insertion mode and SantaCoder FIM, added after CONFIG was pinned.
    {
      family: 'ds1000',
      entry: Ds1000EntrySchema.parse({ name: 'ds-ins', family: 'ds1000', path: 'ds1000.jsonl', mode: 'insertion' }),
      texts: { rows: ds1000InsertionJsonl(DS1000_TASKS) },
    },
    {
      family: 'santacoder-fim',
      entry: SantaCoderFimEntrySchema.parse({ name: 'fim', family: 'santacoder-fim', path: 'fim.parquet' }),
      texts: { rows: fimJsonl(FIM_ROWS) },
    },
  ];
}

/** The bytes prepareSweepDataset stores: each problem as the family loaded it, one JSON line each. */
function storedBytes(family: FamilyId, entry: unknown, texts: Record<string, string>): string {
  const sources = Object.fromEntries(Object.keys(texts).map((role) => [role, `fixture ${role}`]));
  const loaded = (FAMILIES[family] as unknown as { load(input: unknown): { problems: unknown[] } }).load({ entry, texts, sources });
  return loaded.problems.map((p) => JSON.stringify(p) + '\n').join('');
}

/** What a problem's checking makes of it: a run's program parts and score, or a text score (no run, nothing else asked). */
function checkingArtefacts(
  family: ReturnType<typeof familyOf>,
  problem: SweepProblem,
  checking: TaskChecking,
  outcome: { status: 'passed'; stdout: string },
): Record<string, unknown> {
  switch (checking.kind) {
    case 'tests':
      return {
        checking,
        tests: family.tests(problem, null),
        limits: family.limits(problem, null, 3000),
        score: family.score(problem, outcome),
      };
    case 'reference-outputs':
      return {
        checking: { kind: checking.kind, program: checking.program, limits: checking.limits, cacheKey: checking.cacheKey },
        score: family.score(problem, outcome),
      };
    case 'text':
      return {
        checking: { kind: checking.kind, metric: checking.metric.id, reference: checking.reference },
        score: [checking.reference, 'def f(x):\n    return x\n', ''].map((text) => checking.stats(text)),
      };
  }
}

/** What every step makes of a stored problem once read back: prompts, solutions, programs' parts, limits, scores. */
function behaviour(problem: SweepProblem): unknown {
  const family = familyOf(problem);
  const checking = family.checking(problem);
  const outcome = { status: 'passed' as const, stdout: '' };
  return {
    core: [
      problem.task_id,
      problem.prompt,
      problem.entry_point,
      problem.test,
      problem.form,
      problem.canonical_solution ?? null,
      problem.examples ?? null,
    ],
    pipelineLength: family.pipelineLength(problem) ?? null,
    language: family.language(problem),
    completionPrompt: family.completionPrompt(problem),
    chatInstruction: family.chatInstruction(problem),
    solutions: (['completions', 'chat', 'saved'] as const).map((api) => family.solution(problem, api, 'def f(x):\n    return x\n')),
    reference: family.referenceSolution(problem),
    embedded: family.embedSolution(problem, 'SOLUTION\n'),
    ...checkingArtefacts(family, problem, checking, outcome),
    requirements: family.requirements(problem),
  };
}

/** Problems stored before their fields existed: no family (humaneval), no APPS stdin_form (as-written). */
const OLD_STORED = [
  '{"task_id":"T/0","prompt":"def f(x):\\n","entry_point":"f","test":"def check(c):\\n    assert c(1) == 2\\n","form":"completion"}',
  '{"family":"apps","task_id":"9","prompt":"\\nQUESTION:\\nq\\nUse Standard Input format\\nANSWER:\\n","entry_point":"__main__","test":"","form":"full",' +
    '"oracle":{"kind":"apps","input_output":"{\\"inputs\\": [\\"1\\\\n\\"], \\"outputs\\": [\\"1\\\\n\\"]}","test_time_limit":4,"program_time_limit":11}}',
].join('\n');

const PINNED_CONFIG_HASH = '34e59a99d1195c24042c46bf7e3cfdc8b13563b558c15f5baefea41e1b88a0f9';
const PINNED: Array<{ stored: string; behaviour: string }> = [
  {
    stored: 'fe0377947c8e952a5a914428c2c4b3fcba6f5a37641692670092e40ad1f47ea6',
    behaviour: '5c3d0cb2b5910595aa2b961a399e878603ca2d2f472dc12b911236e75d0f4847',
  },
  {
    stored: '47274f707731bb368b5ade6d6d32dedc11f362631a57816f7cedc7d1a9a4d7fc',
    behaviour: '24121e4bba1f686abfeefb281f890792cfd2ec5de6636c424277b04a1f7cfc88',
  },
  {
    stored: 'e922b91d62a7599e3972fded131e80125ae3676a096c19ddfecce8393d297d1b',
    behaviour: 'c6dbfd1c57523e19b80b6a0c012feca186c2f915ef2d245ed15ca8b3323a6b58',
  },
  {
    stored: '61a6cab5a56687b47449a8299471423ed905f94fce5ebfd4c8ebb34ec6f7ebc9',
    behaviour: 'aabcb30ee237c37ba7531e1eb88ad5b9bf66e382f1d70a3173555e85ff0fb553',
  },
  {
    stored: 'c1844d412dae49d604df4b85b9f3e85c430df97eba23ca6cad353f0b795bb5e4',
    behaviour: '85db4d4b121190dfd64f12f938eca427fd55324832d50ef09c46983d7f7e5295',
  },
  {
    stored: 'ba5479e3021b711cbc1b9a3bffabe57dce529f16265dfcd6e83ca27fde07023e',
    behaviour: 'f78ccc7c7eb1a9c63896d5ee58b422aa297aaaef188c224e2310b76bd4a43a6d',
  },
  {
    stored: 'b2d132d9aed93adf663012a2762bfbb26aef81f2e9168f50b7972bb2ed4cfc7b',
    behaviour: 'b7d0098bd6db1654b6e52273da5a2655abdcd50f000c63f57dd9123590667211',
  },
  {
    stored: '636af33f527bc8adde0aba5b73b85e48243a443d9bea5e0d8dc2996c69c38643',
    behaviour: '4b88e5d29b901987fe633cec802b2246b84d0dcbd2b87018075507fdfe1f1c26',
  },
  {
    stored: '4556255991fe5e0de4b645ab55ea1a795f2a52cbeddfc2f3edead1796a1fff3e',
    behaviour: 'a5c290ebf158b856283633321a363d669439c5bfabb5ab07edab999d5df2517b',
  },
  {
    stored: 'b0bcad5abc2c3bdc94a69df0c849c4412b47d6738d10f53b26bf63d8c48f00b0',
    behaviour: '6d59d54cd569ab1e613fa50d2f50e6271e1b4033fecdcc7f9d57cd4dbaa62715',
  },
  {
    stored: '0cab67027bcb1bcfe14e445f9d7c8a8e9198f8ea881f5dd10a7924ea30be317b',
    behaviour: '1c44fcef5ca519dd734761d27c4e22f0fd999c7080b04b136bfc1eafd422eec2',
  },
  {
    stored: '1924c87e4fe81ddf8ac8a64306ee4d5d0bbb856a79d15ea29e74161c60c01c3b',
    behaviour: 'a5a61cb19a6124e58e4c1aa7310fe880f0bc751eff5c3bbfe72aa435aa5e6e6d',
  },
  // pal (GSM8K, GSM-HARD)
  {
    stored: 'f8b097fe11d4293ebf54f07a00f09c98e0bc2a8f481f957c9c867427d8371a86',
    behaviour: 'd953caffefdc6889f5ca3ff2b083356f71904096eefba812a014f7023e544363',
  },
  {
    stored: '4723ba98b46e246e2dee07cf1ce92d5a6e8f195725cb13863dd1a101cd22375d',
    behaviour: '79a6e59c18e138eba2a4f838fcf5b0eac2e36bcce28bdd702880d1dbd90e71a4',
  },
  // classification: complexity, clone, defect
  {
    stored: '07f7fb74271ffc247d971676b7f14858a1490821e48acb6cd40f15d4d6ed44eb',
    behaviour: 'f8016c739ead040276461cae1b25df6c3353227b1253493946e8c8201e349e24',
  },
  {
    stored: 'd5833929810c6ce7108f715c875a1fe8ca589a93fd23c364ed0d67894cde51ef',
    behaviour: '641e06fe7775c8d31b1dbdbc5ae375127352ec9c930af43d7400241b1b8c62d6',
  },
  {
    stored: 'caba7f5ddc9b0454b590bb5cd338af32096a04a0ddc1bf70cfe9e74b1703e9f9',
    behaviour: 'e29cabddbd0ad3b9cdec1dc6e12c1bc017c04bb5b6251eefd5c045e6ed5b81fb',
  },
  // conala, concode, spider
  {
    stored: 'd0db73a0a9e5b228b80a8cb56ed317c12f2aa1abb76c4dc9628be1a3c303e7bb',
    behaviour: 'b2a3ca78b24f69ebb06f89a68ba8317caebc233134e54c86a56b2572d549f773',
  },
  {
    stored: '02dc4db5157ebc11e38112e947af1bbdc5a14db005cb6d72bcea38cbdaa45a66',
    behaviour: '61b220dfa6cc4953537714810f45ec360e73ea5798e45759e78b4c449ac8a239',
  },
  {
    stored: '6dd2170c44343349643d2717b93487029b94acb5fdf6fc15b871938dc6dab2de',
    behaviour: '804b3e5f959076a0b6aeb5ba840006d9e0cb220b5da0c9835c31507baf736de3',
  },
  // code-to-text: python, python-left, go.
  {
    stored: 'f82fbc8a7c1e85d28ab5c318556973f7c24a31a014ad80e424fb43a54b016e1e',
    behaviour: 'dbe4a3ea35dd557f54fb47b24d78046251d335dd6010da5882d833bda5398cfd',
  },
  {
    stored: 'a09dacc31aaf209c82ec1fb158a911338ec99f3d6a1d8e9f71352cad1a157a9d',
    behaviour: 'ea2fdfbfe60bfd129ef8b1a1915d022cb74fedd931306d6d67a7dce1c81916ea',
  },
  {
    stored: '1d7d80e9500dda25eeab8010bfb0547f2ca556b1c1102d3559c1478281e1c609',
    behaviour: 'b20fcaa8d6989f920558088b279c17aef317eb41762b8a01292f21a4a45983db',
  },
  // DS-1000 in insertion mode.
  {
    stored: '758a73cfc7ff7b8f2123757271dc422765db1a1058085e231f6924eba8030e2c',
    behaviour: 'cea93c5ce1c074a84c5fef7e5b4d27289c78b311c5538b4fb39cc55a07decfef',
  },
  // SantaCoder FIM.
  {
    stored: 'b956e4a529fd08ec0b0ecac8d58baa13b57452630f0f543d139bada68eade800',
    behaviour: '6a9cb415ce0465135f4cbf260cedfdecef0ed11e332b0d81da52546374fc45ab',
  },
];
const PINNED_OLD = '570f835e08cfe38f6536ad03de477137d000ae6e91130b598cf989cf47277f16';

describe('stored artefacts and config hashes stay as they were', () => {
  it('a fixed config hashes as before', () => {
    expect(sweepConfigHash(parseSweepConfig(CONFIG), sha)).toBe(PINNED_CONFIG_HASH);
  });

  it("every family's stored problems are byte for byte what they were, and read back behave as before", () => {
    const seen = new Set<FamilyId>();
    const actual = fixtures().map(({ family, entry, texts }) => {
      seen.add(family);
      const stored = storedBytes(family, entry, texts);
      const read = parseJsonl(stored, SweepProblemSchema, 'stored').map((r) => r.row);
      return { stored: sha(stored), behaviour: sha(JSON.stringify(read.map(behaviour))) };
    });
    expect([...seen].sort()).toEqual([...FAMILY_IDS].sort());
    if (process.env.PRINT_PINNED)
      console.log(JSON.stringify({ hash: sweepConfigHash(parseSweepConfig(CONFIG), sha), actual, old: oldBehaviour() }, null, 1));
    expect(actual).toEqual(PINNED);
  });

  it('problems stored before the family and stdin_form fields existed are read as then', () => {
    expect(oldBehaviour()).toBe(PINNED_OLD);
  });
});

function oldBehaviour(): string {
  const read = parseJsonl(OLD_STORED, SweepProblemSchema, 'old').map((r) => r.row);
  return sha(JSON.stringify(read.map((p) => [p.family, behaviour(p)])));
}
