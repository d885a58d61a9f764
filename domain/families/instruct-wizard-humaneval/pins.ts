/**
 * What stored instruct-wizard-humaneval problems must stay: for fixed rows, the bytes a sweep stores
 * and what every step makes of them read back (../pins.ts; checked by test/families/stored-artefacts.test.ts).
 * A pin changes only with a patched() change that keeps running sweeps readable (docs/workflow-versions.md).
 */
import { type StoredProblemPin } from '../pins.js';

export const storedPins: StoredProblemPin[] = [
  {
    case: 'HumanEval, first 3 rows',
    entry: { name: 'wizard', family: 'instruct-wizard-humaneval', path: 'HumanEval.jsonl.gz' },
    texts: { rows: { reference: 'humaneval/HumanEval.jsonl.gz', firstLines: 3 } },
    stored: '1ac95a41e1e8a79d99f97a6713beabf451d7bbc7317a0b5a62e224f8c383de55',
    behaviour: '6cebfd3397b99dd5af6dd77d032d5d05735299e7c383dcf05234e36e9a8437d8',
  },
];
