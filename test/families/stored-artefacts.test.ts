/**
 * What running sweeps have stored must stay readable and what new sweeps store must not change
 * (docs/workflow-versions.md): a fixed config's hash, and for every family of the registry its
 * stored-problem pins, which it keeps in its folder (domain/families/<id>/pins.ts: fixed rows, the
 * stored problems' bytes and what every step makes of them once read back; test/support/stored-pins.ts
 * computes both). The pinned values were computed with the code before families owned their problem
 * payloads (main at 9d2f934), or when the family was added. PRINT_PINNED=1 prints what the code
 * computes now.
 */
import { describe, expect, it } from 'vitest';
import { SweepProblemSchema } from '../../domain/datasets/problems.js';
import { parseJsonl } from '../../domain/datasets/jsonl.js';
import { FAMILY_IDS } from '../../domain/families/registry.js';
import { parseSweepConfig, sweepConfigHash } from '../../domain/sweep/config.js';
import { behaviour, missingPins, pinnedHashes, sha, storedPinsOf } from '../support/stored-pins.js';

const PBE = { count: 3, seed: 11 };
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

/** Problems stored before their fields existed: no family (humaneval), no APPS stdin_form (as-written). */
const OLD_STORED = [
  '{"task_id":"T/0","prompt":"def f(x):\\n","entry_point":"f","test":"def check(c):\\n    assert c(1) == 2\\n","form":"completion"}',
  '{"family":"apps","task_id":"9","prompt":"\\nQUESTION:\\nq\\nUse Standard Input format\\nANSWER:\\n","entry_point":"__main__","test":"","form":"full",' +
    '"oracle":{"kind":"apps","input_output":"{\\"inputs\\": [\\"1\\\\n\\"], \\"outputs\\": [\\"1\\\\n\\"]}","test_time_limit":4,"program_time_limit":11}}',
].join('\n');

const PINNED_CONFIG_HASH = '34e59a99d1195c24042c46bf7e3cfdc8b13563b558c15f5baefea41e1b88a0f9';
const PINNED_OLD = '570f835e08cfe38f6536ad03de477137d000ae6e91130b598cf989cf47277f16';

describe('stored artefacts and config hashes stay as they were', () => {
  it('a fixed config hashes as before', () => {
    expect(sweepConfigHash(parseSweepConfig(CONFIG), sha)).toBe(PINNED_CONFIG_HASH);
  });

  it('every family of the registry keeps its stored-problem pins in its folder', () => {
    expect(missingPins(FAMILY_IDS)).toEqual([]);
  });

  it('problems stored before the family and stdin_form fields existed are read as then', () => {
    expect(oldBehaviour()).toBe(PINNED_OLD);
  });
});

describe.each(FAMILY_IDS)(
  '%s: the stored problems of its pins are byte for byte what they were, and read back behave as before',
  (family) => {
    it('as its pins say', async () => {
      const pins = await storedPinsOf(family);
      const actual = pins.map((pin) => ({ case: pin.case, ...pinnedHashes(family, pin) }));
      if (process.env.PRINT_PINNED) console.log(JSON.stringify({ family, actual }, null, 1));
      expect(actual).toEqual(pins.map(({ case: what, stored, behaviour }) => ({ case: what, stored, behaviour })));
    });
  },
);

function oldBehaviour(): string {
  const read = parseJsonl(OLD_STORED, SweepProblemSchema, 'old').map((r) => r.row);
  return sha(JSON.stringify(read.map((p) => [p.family, behaviour(p)])));
}
