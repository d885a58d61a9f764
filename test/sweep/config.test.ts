import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import YAML from 'yaml';
import { BIGCODE_HUMANEVAL_STOP_WORDS } from '../../domain/llm/extract.js';
import { DEFAULT_PBE_PARAMS } from '../../domain/pbe/params.js';
import {
  canonicalSweepJson,
  describeSweepConfigDifferences,
  loadSweepConfig,
  parseSweepConfig,
  SweepConfigError,
  SweepConfigSchema,
  stopSentTo,
  stopWordsFor,
  sweepConfigHash,
  type SweepConfig,
  type SweepConfigIssue,
} from '../../domain/sweep/config.js';
import { METHOD_NAMES } from '../../domain/methods/registry.js';
import { FAMILY_IDS } from '../../domain/families/ids.js';
import { minimalSweepConfig, sweepConfigIssues } from '../support/sweep-config.js';

const EXAMPLE_YAML = `
id: my-sweep
datasets:
  - name: pbe-small
    family: pbe-world
    pbe_world:
      count: 20
  - name: humaneval
    family: humaneval
    path: ../shared/reference/humaneval/HumanEval.jsonl.gz
    program_form: prompt_plus_completion
models:
  - id: gpt-x
    base_url: http://127.0.0.1:8080/v1
    model: some-model-name
    api: chat
    api_key_env: OPENAI_API_KEY
    max_tokens: 512
    stop: ["\\nclass"]
    concurrency: 4
    requests_per_second: 10
    request_timeout_s: 120
    send_seed: true
methods: [direct]
temperatures: [0.2, 0.8]
top_p: 0.95
n_samples: 10
k: [1, 10]
limit: 20
timeout_s: 3
seed: 1234
`;

const minimal = minimalSweepConfig;
const issuesOf = sweepConfigIssues;

function loadIssues(text: string, fileName: string): SweepConfigIssue[] {
  try {
    loadSweepConfig(text, fileName);
  } catch (error) {
    expect(error).toBeInstanceOf(SweepConfigError);
    return (error as SweepConfigError).issues;
  }
  throw new Error(`accepted ${fileName}`);
}

const paths = (issues: SweepConfigIssue[]) => issues.map((i) => i.path).sort();

describe('loadSweepConfig: the example of the spec', () => {
  it('reads every field and fills in defaults', () => {
    const c = loadSweepConfig(EXAMPLE_YAML, 'sweep.yaml');
    expect(c.id).toBe('my-sweep');
    expect(c.datasets).toHaveLength(2);
    const [pbe, he] = c.datasets;
    expect(pbe!.name).toBe('pbe-small');
    expect(pbe!.family).toBe('pbe-world');
    if (pbe!.family !== 'pbe-world') throw new Error('unreachable');
    expect(pbe!.pbe_world).toEqual({ ...DEFAULT_PBE_PARAMS, count: 20 });
    expect(pbe!.program_form).toBe('full_program');
    expect(he).toEqual({
      name: 'humaneval',
      family: 'humaneval',
      path: '../shared/reference/humaneval/HumanEval.jsonl.gz',
      program_form: 'prompt_plus_completion',
    });
    expect(c.models).toEqual([
      {
        id: 'gpt-x',
        base_url: 'http://127.0.0.1:8080/v1',
        model: 'some-model-name',
        api: 'chat',
        api_key_env: 'OPENAI_API_KEY',
        max_tokens: 512,
        stop: ['\nclass'],
        concurrency: 4,
        requests_per_second: 10,
        request_timeout_s: 120,
        send_seed: true,
      },
    ]);
    expect(c).toMatchObject({
      methods: ['direct'],
      temperatures: [0.2, 0.8],
      top_p: 0.95,
      n_samples: 10,
      k: [1, 10],
      limit: 20,
      timeout_s: 3,
      seed: 1234,
    });
  });

  it('reads the same config from JSON', () => {
    const fromYaml = loadSweepConfig(EXAMPLE_YAML, 'sweep.yml');
    const fromJson = loadSweepConfig(JSON.stringify(YAML.parse(EXAMPLE_YAML), null, 2), 'sweep.JSON');
    expect(fromJson).toEqual(fromYaml);
  });

  it('defaults: top_p, timeout_s, seed, api, max_tokens, concurrency, timeouts, send_seed, program_form, stop', () => {
    const value = minimal();
    value.datasets = [
      { name: 'gen', family: 'pbe-world', pbe_world: null },
      { name: 'he', family: 'humaneval', path: 's3://explora/reference/HumanEval.jsonl.gz' },
    ];
    value.models = [
      { id: 'chatty', base_url: 'https://api.example.com/v1/', model: 'c' },
      { id: 'base', base_url: 'http://127.0.0.1:8000/v1', model: 'b', api: 'completions' },
      { id: 'base-nostop', base_url: 'http://127.0.0.1:8000/v1', model: 'b', api: 'completions', stop: [] },
    ];
    const c = parseSweepConfig(value);
    expect(c).toMatchObject({ top_p: 0.95, timeout_s: 3, seed: 0 });
    expect(c.limit).toBeUndefined();
    expect(c.id).toBeUndefined();
    expect(c.datasets[0]).toEqual({ name: 'gen', family: 'pbe-world', pbe_world: { ...DEFAULT_PBE_PARAMS }, program_form: 'full_program' });
    expect((c.datasets[1] as { program_form: string }).program_form).toBe('prompt_plus_completion');
    const [chatty, base, noStop] = c.models;
    expect(chatty).toEqual({
      id: 'chatty',
      base_url: 'https://api.example.com/v1',
      model: 'c',
      api: 'chat',
      max_tokens: 512,
      concurrency: 4,
      request_timeout_s: 120,
      send_seed: true,
    });
    // Absent stop words are the dataset family's for completions (bigcode's HumanEval ones for
    // these families), none for chat; given ones are kept, an empty list included.
    const [gen, he] = c.datasets;
    expect(base!.stop).toBeUndefined();
    expect(stopWordsFor(base!, he!)).toEqual([...BIGCODE_HUMANEVAL_STOP_WORDS]);
    expect(stopWordsFor(base!, gen!)).toEqual([...BIGCODE_HUMANEVAL_STOP_WORDS]);
    expect(stopWordsFor(chatty!, he!)).toEqual([]);
    expect(stopWordsFor(noStop!, he!)).toEqual([]);
  });

  it('program_form can be overridden both ways', () => {
    const value = minimal();
    value.datasets = [
      { name: 'a', family: 'pbe-world', pbe_world: {}, program_form: 'prompt_plus_completion' },
      { name: 'b', family: 'humaneval', path: 'x.jsonl', program_form: 'full_program' },
    ];
    expect(parseSweepConfig(value).datasets.map((d) => (d as { program_form: string }).program_form)).toEqual([
      'prompt_plus_completion',
      'full_program',
    ]);
  });

  it('the resolved config validates to itself (it can be stored and re-read)', () => {
    const c = loadSweepConfig(EXAMPLE_YAML, 'sweep.yaml');
    expect(parseSweepConfig(JSON.parse(JSON.stringify(c)))).toEqual(c);
    expect(SweepConfigSchema.parse(c)).toEqual(c);
  });

  it('accepts pbe_world parameters resolvePbeParams accepts (alphabet_size, alphabet string)', () => {
    const value = minimal();
    value.datasets = [
      { name: 'a', family: 'pbe-world', pbe_world: { alphabet_size: 3, l_min: 3, l_max: 6, count: 5, seed: 7 } },
      { name: 'b', family: 'pbe-world', pbe_world: { alphabet: 'xyz', count: 2 } },
    ];
    const [a, b] = parseSweepConfig(value).datasets;
    expect(a).toMatchObject({ pbe_world: { alphabet: ['a', 'b', 'c'], l_min: 3, l_max: 6, count: 5, seed: 7 } });
    expect(b).toMatchObject({ pbe_world: { alphabet: ['x', 'y', 'z'], count: 2 } });
  });
});

describe('validation errors name the field path', () => {
  it('a model base_url that is not a URL', () => {
    const value = minimal();
    value.models = [
      { id: 'a', base_url: 'http://127.0.0.1:1/v1', model: 'x' },
      { id: 'b', base_url: 'localhost:8080', model: 'x' },
    ];
    const issues = issuesOf(value);
    expect(issues).toEqual([{ path: 'models[1].base_url', message: 'must be an http(s) URL' }]);
  });

  it('the error message lists every issue, one per line, with its path', () => {
    const value = minimal();
    value.top_p = 0;
    value.n_samples = 0;
    try {
      parseSweepConfig(value, 'sweep.yaml');
      throw new Error('accepted');
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toContain('invalid sweep config sweep.yaml');
      expect(message).toContain('\n  - top_p: must be > 0, got 0');
      expect(message).toContain('\n  - n_samples: must be >= 1, got 0');
    }
  });

  it('shard_samples: a whole number of samples at least 1; it lays out work, so it changes neither the hash nor the config', () => {
    expect(issuesOf({ ...minimal(), shard_samples: 0 })).toEqual([{ path: 'shard_samples', message: 'must be >= 1, got 0' }]);
    expect(issuesOf({ ...minimal(), shard_samples: 2.5 })).toEqual([{ path: 'shard_samples', message: expect.stringMatching(/integer/) }]);
    expect(issuesOf({ ...minimal(), shard_samples: 1_000_001 })).toEqual([
      { path: 'shard_samples', message: 'must be <= 1000000, got 1000001' },
    ]);
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    const plain = parseSweepConfig(minimal());
    const small = parseSweepConfig({ ...minimal(), shard_samples: 50 });
    expect(small.shard_samples).toBe(50);
    expect(sweepConfigHash(small, sha)).toBe(sweepConfigHash(plain, sha));
    expect(describeSweepConfigDifferences(plain, small)).toEqual([]);
  });

  it('max_parallel_cells: a whole number from 1 to 64; it lays out work, so it changes neither the hash nor the config', () => {
    expect(issuesOf({ ...minimal(), max_parallel_cells: 0 })).toEqual([{ path: 'max_parallel_cells', message: 'must be >= 1, got 0' }]);
    expect(issuesOf({ ...minimal(), max_parallel_cells: 65 })).toEqual([{ path: 'max_parallel_cells', message: 'must be <= 64, got 65' }]);
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    const plain = parseSweepConfig(minimal());
    const serial = parseSweepConfig({ ...minimal(), max_parallel_cells: 1 });
    expect(serial.max_parallel_cells).toBe(1);
    expect(sweepConfigHash(serial, sha)).toBe(sweepConfigHash(plain, sha));
    expect(describeSweepConfigDifferences(plain, serial)).toEqual([]);
  });

  it('heartbeat_timeout_s: whole seconds from 10 to 3600; it only says when a worker is dead, so it changes neither the hash nor the config', () => {
    expect(issuesOf({ ...minimal(), heartbeat_timeout_s: 5 })).toEqual([{ path: 'heartbeat_timeout_s', message: 'must be >= 10, got 5' }]);
    expect(issuesOf({ ...minimal(), heartbeat_timeout_s: 3601 })).toEqual([
      { path: 'heartbeat_timeout_s', message: 'must be <= 3600, got 3601' },
    ]);
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    const plain = parseSweepConfig(minimal());
    const quick = parseSweepConfig({ ...minimal(), heartbeat_timeout_s: 10 });
    expect(quick.heartbeat_timeout_s).toBe(10);
    expect(sweepConfigHash(quick, sha)).toBe(sweepConfigHash(plain, sha));
    expect(describeSweepConfigDifferences(plain, quick)).toEqual([]);
  });

  it('lists all issues at once, even with type errors deep inside lists', () => {
    const value = minimal();
    value.datasets = [
      { name: 'Bad Name', family: 'humaneval', path: 'x.txt' },
      { name: 'b' },
      { name: 'b', family: 'humaneval', path: 'y.jsonl', pbe_world: {} },
    ];
    value.models = [
      { id: 'm', base_url: 'ftp://x', model: '', api: 'chatt', concurrency: 1.5, max_tokens: 0 },
      { id: 'm', base_url: 'http://x', model: 'x', temprature: 1 },
    ];
    value.methods = ['direct', 'rag-fusion', 'direct'];
    value.temperatures = [0.2, 2.5, -1, 0.2];
    value.top_p = 1.5;
    value.n_samples = 5;
    value.k = [1, 10, 10];
    value.limit = 0;
    value.timeout_s = 601;
    value.seed = -1;
    value.seeed = 3;
    const issues = issuesOf(value);
    expect(paths(issues)).toEqual(
      [
        'datasets[0].name',
        'datasets[0].path',
        'datasets[1].family',
        'datasets[2].name',
        'datasets[2].pbe_world',
        'models[0].base_url',
        'models[0].model',
        'models[0].api',
        'models[0].concurrency',
        'models[0].max_tokens',
        'models[1].id',
        'models[1].temprature',
        'methods[1]',
        'methods[2]',
        'temperatures[1]',
        'temperatures[2]',
        'temperatures[3]',
        'top_p',
        'k[1]',
        'k[2]',
        'k[2]',
        'limit',
        'timeout_s',
        'seed',
        'seeed',
      ].sort(),
    );
    const at = (path: string) => issues.filter((i) => i.path === path).map((i) => i.message);
    expect(at('models[0].concurrency')).toEqual(['must be an integer, got number 1.5']);
    expect(at('models[0].api')).toEqual(['must be one of "chat", "completions", got a string ("chatt")']);
    expect(at('methods[1]')).toEqual([
      `must be one of ${METHOD_NAMES.map((m) => JSON.stringify(m)).join(', ')}, got a string ("rag-fusion")`,
    ]);
    expect(at('methods[2]')).toEqual(['duplicate of methods[0] ("direct")']);
    expect(at('models[1].id')).toEqual(['duplicate of models[0].id ("m")']);
    expect(at('datasets[2].name')).toEqual(['duplicate of datasets[1].name ("b")']);
    expect(at('datasets[2].pbe_world')).toEqual(['unknown key (allowed: name, family, path, program_form, strip_prompt, library)']);
    expect(at('datasets[1].family')).toEqual([`is required: the dataset's task family, one of ${FAMILY_IDS.join(', ')}`]);
    expect(at('temperatures[1]')).toEqual(['must be <= 2, got 2.5']);
    expect(at('temperatures[3]')).toEqual(['duplicate of temperatures[0] (0.2)']);
    expect(at('k[1]')).toEqual(['k = 10 exceeds n_samples (5): pass@k needs at least k samples per task']);
    expect(at('models[1].temprature')[0]).toMatch(/^unknown key/);
    expect(at('seeed')).toEqual(['unknown key (did you mean seed?)']);
  });

  it('an entry without family: its misspelt key is named with the correction, the hint comes from its keys and file', () => {
    const families = FAMILY_IDS.join(', ');
    const typo = issuesOf({ ...minimal(), datasets: [{ name: 'm', famly: 'mbpp', path: 'data/mbpp.jsonl' }] });
    expect(typo).toContainEqual({ path: 'datasets[0].famly', message: 'unknown key (did you mean family?)' });
    expect(typo).toContainEqual({
      path: 'datasets[0].family',
      message: `is required: the dataset's task family, one of ${families} (this entry looks like family: mbpp)`,
    });
    const js = issuesOf({ ...minimal(), datasets: [{ name: 'j', path: 'humaneval-js.jsonl', language: 'js' }] });
    expect(js).toContainEqual({
      path: 'datasets[0].family',
      message: `is required: the dataset's task family, one of ${families} (this entry looks like family: multipl-e or humanevalpack or humanevalexplain)`,
    });
    // The file name tells apart families that take the same keys.
    const pack = issuesOf({ ...minimal(), datasets: [{ name: 'p', path: 'js/data/humanevalpack.jsonl', language: 'js' }] });
    expect(pack).toContainEqual({
      path: 'datasets[0].family',
      message: `is required: the dataset's task family, one of ${families} (this entry looks like family: humanevalpack)`,
    });
    const he = issuesOf({ ...minimal(), datasets: [{ name: 'h', path: 'HumanEval.jsonl.gz' }] });
    expect(he).toContainEqual({
      path: 'datasets[0].family',
      message: `is required: the dataset's task family, one of ${families} (this entry looks like family: humaneval)`,
    });
  });

  it("a family's required field says the family requires it (MultiPL-E's language)", () => {
    const issues = issuesOf({ ...minimal(), datasets: [{ name: 'x', family: 'multipl-e', path: 'x.jsonl' }] });
    const language = issues.find((i) => i.path === 'datasets[0].language');
    expect(language?.message).toMatch(/^is required for family multipl-e: one of js, ts, /);
    expect(language?.message).not.toContain('undefined');
  });

  it('required fields are reported as required', () => {
    const issues = issuesOf({ datasets: [{ name: 'a', family: 'humaneval', path: 'a.jsonl' }], models: [{ id: 'm', model: 'x' }] });
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: 'models[0].base_url', message: 'is required' },
        { path: 'methods', message: 'is required' },
        { path: 'temperatures', message: 'is required' },
        { path: 'n_samples', message: 'is required' },
        { path: 'k', message: 'is required' },
      ]),
    );
  });

  it('empty lists are refused', () => {
    const value = { ...minimal(), datasets: [], models: [], methods: [], temperatures: [], k: [] };
    expect(issuesOf(value)).toEqual([
      { path: 'datasets', message: 'needs at least one dataset' },
      { path: 'models', message: 'needs at least one model' },
      { path: 'methods', message: 'needs at least one method' },
      { path: 'temperatures', message: 'needs at least one temperature' },
      { path: 'k', message: 'needs at least one k' },
    ]);
  });

  it('k above n_samples names both', () => {
    const issues = issuesOf({ ...minimal(), n_samples: 10, k: [1, 10, 100] });
    expect(issues).toEqual([{ path: 'k[2]', message: 'k = 100 exceeds n_samples (10): pass@k needs at least k samples per task' }]);
  });

  it('pbe_world parameters are checked by the PBE rules, under their own paths', () => {
    const value = minimal();
    value.datasets = [
      { name: 'a', family: 'pbe-world', pbe_world: { num_examples: 10, num_tests: 10, n_inputs_for_examples: 16 } },
      { name: 'b', family: 'pbe-world', pbe_world: { count: 0, num_test: 3 } },
      { name: 'c', family: 'pbe-world', pbe_world: [1, 2] },
      { name: 'd', family: 'pbe-world', pbe_world: { alphabet: 'ab', alphabet_size: 2 } },
    ];
    const issues = issuesOf(value);
    expect(issues).toContainEqual({
      path: 'datasets[0].pbe_world.num_examples',
      message: expect.stringContaining('num_examples + num_tests (10 + 10) must be <= n_inputs_for_examples (16)'),
    });
    expect(issues).toContainEqual({ path: 'datasets[1].pbe_world.num_test', message: 'unknown key (did you mean num_tests?)' });
    expect(issues).toContainEqual({ path: 'datasets[1].pbe_world.count', message: 'must be >= 1' });
    expect(issues).toContainEqual({
      path: 'datasets[2].pbe_world',
      message: 'must be a mapping of PBE World parameters (or empty for the defaults)',
    });
    expect(issues).toContainEqual({ path: 'datasets[3].pbe_world.alphabet', message: 'give either alphabet or alphabet_size, not both' });
  });

  it('dataset paths: local .jsonl/.jsonl.gz or s3://bucket/key', () => {
    const ok = ['a.jsonl', '../x/HumanEval.jsonl.gz', '/abs/p.jsonl', 's3://explora/datasets/x/part-00000.jsonl', 's3://my.bucket/prefix/'];
    const bad = ['a.json', 'a.jsonl.zip', 's3://', 's3://bucket', 's3://Bucket/key', ''];
    for (const path of ok)
      expect(parseSweepConfig({ ...minimal(), datasets: [{ name: 'd', family: 'humaneval', path }] }).datasets[0]).toMatchObject({ path });
    for (const path of bad) {
      const issues = issuesOf({ ...minimal(), datasets: [{ name: 'd', family: 'humaneval', path }] });
      expect(
        issues.map((i) => i.path),
        path,
      ).toEqual(['datasets[0].path']);
    }
  });

  it('names and ids: lowercase letters, digits, . _ - only', () => {
    for (const name of ['pbe-small', 'he.v1', 'a_b', '0x']) {
      expect(() => parseSweepConfig({ ...minimal(), id: name, datasets: [{ name, family: 'humaneval', path: 'a.jsonl' }] })).not.toThrow();
    }
    for (const name of ['PBE', '-x', '.x', 'a/b', 'a b', '', 'é']) {
      expect(
        paths(
          issuesOf({
            ...minimal(),
            id: name,
            datasets: [{ name, family: 'humaneval', path: 'a.jsonl' }],
            models: [{ id: name, base_url: 'http://x', model: 'm' }],
          }),
        ),
        name,
      ).toEqual(['datasets[0].name', 'id', 'models[0].id'].sort());
    }
    expect(paths(issuesOf({ ...minimal(), id: 'a'.repeat(81) }))).toEqual(['id']);
    expect(() => parseSweepConfig({ ...minimal(), id: 'a'.repeat(80) })).not.toThrow();
  });

  it('api_key_env is the NAME of a variable, and a key in the config is refused without echoing it', () => {
    const secret = 'sk-proj-abcdefghijklmnop';
    const value = minimal();
    value.models = [
      { id: 'a', base_url: 'http://x', model: 'm', api_key_env: secret },
      { id: 'b', base_url: 'http://x', model: 'm', api_key: secret },
      { id: 'c', base_url: 'http://x', model: 'm', api_key_env: 'lower_case' },
      { id: 'd', base_url: 'http://x', model: 'm', api_key_env: 'MY_KEY_2' },
    ];
    let error: SweepConfigError | undefined;
    try {
      parseSweepConfig(value);
    } catch (e) {
      error = e as SweepConfigError;
    }
    expect(error).toBeInstanceOf(SweepConfigError);
    expect(paths(error!.issues)).toEqual(['models[0].api_key_env', 'models[1].api_key', 'models[2].api_key_env']);
    expect(error!.issues.find((i) => i.path === 'models[1].api_key')!.message).toContain('api_key_env');
    expect(error!.message).not.toContain(secret);
  });

  it('numeric ranges: temperatures 0..2, top_p in (0, 1], timeout_s 0.1..600, integers where counts', () => {
    expect(() => parseSweepConfig({ ...minimal(), temperatures: [0, 2], top_p: 1, timeout_s: 0.1 })).not.toThrow();
    expect(() => parseSweepConfig({ ...minimal(), timeout_s: 600 })).not.toThrow();
    expect(paths(issuesOf({ ...minimal(), temperatures: [2.01] }))).toEqual(['temperatures[0]']);
    expect(paths(issuesOf({ ...minimal(), top_p: 1.01 }))).toEqual(['top_p']);
    expect(paths(issuesOf({ ...minimal(), timeout_s: 0.05 }))).toEqual(['timeout_s']);
    expect(paths(issuesOf({ ...minimal(), n_samples: 2.5 }))).toEqual(['n_samples']);
    expect(paths(issuesOf({ ...minimal(), k: [0.5] }))).toEqual(['k[0]']);
    expect(paths(issuesOf({ ...minimal(), seed: 1.5 }))).toEqual(['seed']);
    expect(paths(issuesOf({ ...minimal(), temperatures: ['0.2'] }))).toEqual(['temperatures[0]']);
    expect(issuesOf({ ...minimal(), temperatures: ['0.2'] })[0]!.message).toBe('must be a number, got a string ("0.2")');
  });

  it('samples_per_request: 1..128, an integer; 1 is the same config as leaving it out', () => {
    const withModel = (extra: Record<string, unknown>) => ({
      ...minimal(),
      models: [{ id: 'm', base_url: 'http://x', model: 'm', ...extra }],
    });
    expect(parseSweepConfig(withModel({ samples_per_request: 8 })).models[0]!.samples_per_request).toBe(8);
    expect(parseSweepConfig(withModel({ samples_per_request: 1 }))).toEqual(parseSweepConfig(withModel({})));
    expect(paths(issuesOf(withModel({ samples_per_request: 0 })))).toEqual(['models[0].samples_per_request']);
    expect(paths(issuesOf(withModel({ samples_per_request: 129 })))).toEqual(['models[0].samples_per_request']);
    expect(paths(issuesOf(withModel({ samples_per_request: 2.5 })))).toEqual(['models[0].samples_per_request']);
    expect(issuesOf(withModel({ sample_per_request: 2 }))[0]!.message).toMatch(/did you mean samples_per_request/);
  });

  it("max_stop_sequences: how many stop words are sent (default 4, OpenAI's limit); the rest are only applied to answers", () => {
    const withModel = (extra: Record<string, unknown>) => ({
      ...minimal(),
      models: [{ id: 'm', base_url: 'http://x', model: 'm', api: 'completions', ...extra }],
    });
    const sent = (extra: Record<string, unknown>) => {
      const c = parseSweepConfig(withModel(extra));
      return stopSentTo(stopWordsFor(c.models[0]!, c.datasets[0]!), c.models[0]!);
    };
    expect(BIGCODE_HUMANEVAL_STOP_WORDS.length).toBeGreaterThan(4);
    expect(sent({})).toEqual(BIGCODE_HUMANEVAL_STOP_WORDS.slice(0, 4));
    expect(sent({ max_stop_sequences: 100 })).toEqual([...BIGCODE_HUMANEVAL_STOP_WORDS]);
    expect(sent({ max_stop_sequences: 0 })).toEqual([]);
    expect(sent({ stop: ['\nx'] })).toEqual(['\nx']);
    expect(parseSweepConfig(withModel({ max_stop_sequences: 4 }))).toEqual(parseSweepConfig(withModel({})));
    expect(paths(issuesOf(withModel({ max_stop_sequences: -1 })))).toEqual(['models[0].max_stop_sequences']);
    expect(paths(issuesOf(withModel({ max_stop_sequences: 1.5 })))).toEqual(['models[0].max_stop_sequences']);
  });

  it('cell ids that two different cells would share are refused', () => {
    const value = minimal();
    value.datasets = [
      { name: 'a.b', family: 'humaneval', path: 'x.jsonl' },
      { name: 'a', family: 'humaneval', path: 'y.jsonl' },
    ];
    value.models = [
      { id: 'c', base_url: 'http://x', model: 'm' },
      { id: 'b.c', base_url: 'http://x', model: 'm' },
    ];
    value.temperatures = [0.8];
    const issues = issuesOf(value);
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path).toBe('models[1].id');
    expect(issues[0]!.message).toContain('"a.b.c.direct.t0.8"');
  });

  it('the config must be a mapping', () => {
    expect(issuesOf(null)).toEqual([{ path: '', message: expect.stringContaining('empty') }]);
    expect(issuesOf([1, 2])).toEqual([{ path: '', message: 'the config must be a mapping, got a list' }]);
    expect(loadIssues('# nothing here\n', 'a.yaml')).toEqual([{ path: '', message: expect.stringContaining('empty') }]);
  });
});

describe('file syntax', () => {
  it('picks the parser by extension and refuses others', () => {
    expect(loadIssues('{}', 'sweep.toml')).toEqual([{ path: '', message: 'unsupported file extension: use .yaml, .yml or .json' }]);
    // YAML flow syntax that is not JSON: accepted as .yaml, a syntax error as .json
    const text = `{datasets: [{name: a, family: humaneval, path: a.jsonl}], models: [{id: m, base_url: "http://x", model: x}], methods: [direct], temperatures: [0.2], n_samples: 1, k: [1]}`;
    expect(loadSweepConfig(text, 'a.yaml').models[0]!.id).toBe('m');
    expect(loadIssues(text, 'a.json')).toEqual([{ path: '', line: 1, column: 2, message: expect.stringContaining('JSON syntax') }]);
  });

  it('JSON syntax errors give line and column', () => {
    const text = '{\n  "datasets": [],\n  "models": [\n    {"id": "m",}\n  ]\n}\n';
    const issues = loadIssues(text, 'a.json');
    expect(issues).toEqual([{ path: '', line: 4, column: 16, message: "JSON syntax: trailing comma before '}'" }]);
    expect(loadIssues('{"a": 1', 'a.json')).toEqual([
      { path: '', line: 1, column: 8, message: "JSON syntax: expected ',' or '}', found end of input" },
    ]);
    expect(loadIssues('{"a": tru}', 'a.json')[0]).toMatchObject({ line: 1, column: 7 });
    expect(loadIssues('{"a": 1} x', 'a.json')[0]).toMatchObject({ line: 1, column: 10 });
    expect(loadIssues('', 'a.json')[0]).toMatchObject({ line: 1, column: 1 });
  });

  it('duplicate keys are errors in JSON and YAML', () => {
    expect(loadIssues('{"seed": 1,\n "seed": 2}', 'a.json')).toEqual([
      { path: '', line: 2, column: 2, message: 'JSON syntax: duplicate key "seed"' },
    ]);
    const yaml = loadIssues('seed: 1\nn_samples: 2\nseed: 3\n', 'a.yaml');
    expect(yaml).toHaveLength(1);
    expect(yaml[0]).toMatchObject({ path: '', line: 3, column: 1 });
    expect(yaml[0]!.message).toMatch(/^YAML syntax: .*unique/);
  });

  it('YAML syntax errors give line and column', () => {
    const text = 'datasets:\n  - name: a\n    family: humaneval\n    path: a.jsonl\nmodels: [ {id: m\n';
    const issues = loadIssues(text, 'a.yml');
    expect(issues.length).toBeGreaterThan(0);
    for (const issue of issues) {
      expect(issue.line).toBeGreaterThanOrEqual(4);
      expect(issue.column).toBeGreaterThanOrEqual(1);
      expect(issue.message).toMatch(/^YAML syntax: /);
    }
    const error = (() => {
      try {
        loadSweepConfig(text, 'a.yml');
      } catch (e) {
        return e as Error;
      }
      return undefined;
    })();
    expect(error!.message).toMatch(/line \d+, column \d+: YAML syntax/);
  });

  it('a byte order mark and CRLF line ends are fine', () => {
    const crlf = '\uFEFF' + EXAMPLE_YAML.replace(/\n/g, '\r\n');
    expect(loadSweepConfig(crlf, 'a.yaml')).toEqual(loadSweepConfig(EXAMPLE_YAML, 'a.yaml'));
    const json = '\uFEFF' + JSON.stringify(YAML.parse(EXAMPLE_YAML));
    expect(loadSweepConfig(json, 'a.json')).toEqual(loadSweepConfig(EXAMPLE_YAML, 'a.yaml'));
  });
});

describe('canonicalSweepJson', () => {
  it('is the same however the file was written, and differs when the config does', () => {
    const a = loadSweepConfig(EXAMPLE_YAML, 'a.yaml');
    const reordered = `
seed: 1234
timeout_s: 3.0
limit: 20
k: [1, 10]
n_samples: 10
temperatures: [0.20, 0.80]
methods: [direct]
models:
  - requests_per_second: 10
    stop: ["\\nclass"]
    model: some-model-name
    base_url: http://127.0.0.1:8080/v1/
    id: gpt-x
    api_key_env: OPENAI_API_KEY
datasets:
  - pbe_world: {count: 20, seed: 0, alphabet: ab}
    family: pbe-world
    name: pbe-small
  - path: ../shared/reference/humaneval/HumanEval.jsonl.gz
    name: humaneval
    family: humaneval
id: my-sweep
`;
    const b = loadSweepConfig(reordered, 'b.yaml');
    expect(canonicalSweepJson(b)).toBe(canonicalSweepJson(a));
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    expect(sweepConfigHash(b, sha)).toBe(sweepConfigHash(a, sha));
    expect(describeSweepConfigDifferences(a, b)).toEqual([]);

    const c: SweepConfig = { ...a, temperatures: [0.2, 0.9] };
    expect(canonicalSweepJson(c)).not.toBe(canonicalSweepJson(a));
    expect(sweepConfigHash(c, sha)).not.toBe(sweepConfigHash(a, sha));
    expect(describeSweepConfigDifferences(a, c)).toEqual(['temperatures: [0.2,0.8] → [0.2,0.9]']);
    const d = parseSweepConfig({
      ...JSON.parse(JSON.stringify(a)),
      datasets: [{ name: 'pbe-small', family: 'pbe-world', pbe_world: { count: 21 } }, a.datasets[1]],
    });
    expect(canonicalSweepJson(d)).not.toBe(canonicalSweepJson(a));
    expect(describeSweepConfigDifferences(a, d).map((line) => line.split(':')[0])).toEqual(['datasets']);
  });

  it('sorts keys at every level', () => {
    const json = canonicalSweepJson(loadSweepConfig(EXAMPLE_YAML, 'a.yaml'));
    const sortedEverywhere = (v: unknown): boolean =>
      Array.isArray(v)
        ? v.every(sortedEverywhere)
        : v !== null && typeof v === 'object'
          ? Object.keys(v).join() === Object.keys(v).sort().join() && Object.values(v).every(sortedEverywhere)
          : true;
    expect(sortedEverywhere(JSON.parse(json))).toBe(true);
    expect(json.startsWith('{"datasets":')).toBe(true);
  });
});

describe('method needs', () => {
  it('API-aware methods need a library on path datasets and chat models, each named', () => {
    const value = minimal();
    value.datasets = [
      { name: 'he', family: 'humaneval', path: 'he.jsonl' },
      { name: 'pbe', family: 'pbe-world', pbe_world: { count: 3 } },
    ];
    value.models = [{ id: 'base', base_url: 'http://x', model: 'b', api: 'completions' }];
    value.methods = ['exploracoder'];
    const issues = issuesOf(value);
    expect(paths(issues)).toEqual(['datasets[0].library', 'models[0].api']);
    expect(issues[0]!.message).toMatch(/exploracoder.*library/);
    expect(issues[1]!.message).toMatch(/api: chat/);
  });

  it('accepts a corpus or a private library, fills method options with the paper defaults', () => {
    const value = minimal();
    value.datasets = [
      { name: 'he', family: 'humaneval', path: 'he.jsonl', library: { api_docs: 'docs.jsonl', name: 'mylib', summary: 'A library.' } },
      {
        name: 'monkey',
        family: 'renamed-library',
        path: 'm.jsonl.gz',
        library: { private_library: 'monkey', keywords: 'k.jsonl', mapping: 'm.json' },
      },
    ];
    value.methods = ['exploracoder-debug', 'rag'];
    value.method_options = { candidates: 3 };
    const config = parseSweepConfig(value);
    expect(config.method_options).toMatchObject({
      candidates: 3,
      retrieve_k: 20,
      global_k: 15,
      planner_examples: 4,
      explore_temperature: 0.8,
      explore_top_p: 0.95,
    });
    expect(config.datasets[1]).toMatchObject({ library: { private_library: 'monkey' } });
  });

  it('refuses a dense retriever without an embeddings endpoint and unknown options, naming them', () => {
    const value = minimal();
    value.method_options = { retriever: 'dense', candidatez: 2 };
    expect(paths(issuesOf(value))).toEqual(['method_options.candidatez', 'method_options.embeddings'].sort());
  });
});

describe('shipped example configs', () => {
  it('configs/*.yaml are valid', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const dir = new URL('../../configs/', import.meta.url);
    const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(() => loadSweepConfig(readFileSync(new URL(f, dir), 'utf8'), f)).not.toThrow();
  });
});
