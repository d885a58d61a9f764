/**
 * What stored quixbugs problems must stay: for fixed rows, the bytes a sweep stores and what every
 * step makes of them read back (../pins.ts; checked by test/families/stored-artefacts.test.ts). A pin
 * changes only with a patched() change that keeps running sweeps readable (docs/workflow-versions.md).
 */
import { jsonLines, type StoredProblemPin } from '../pins.js';

const ROWS = jsonLines([
  '{"name":"gcd","buggy_program":"def gcd(a, b):\\n    if b == 0:\\n        return a\\n    else:\\n        return gcd(a % b, b)","docstring":"\\nGreatest Common Divisor\\n","solution":"def gcd(a, b):\\n    if b == 0:\\n        return a\\n    else:\\n        return gcd(b, a % b)","tests":"assert gcd(*[17, 0]) == 17\\nassert gcd(*[3, 12]) == 3\\n"}',
]);

export const storedPins: StoredProblemPin[] = [
  {
    case: 'prompt',
    entry: { name: 'qb', family: 'quixbugs', path: 'q.jsonl', prompt: 'prompt' },
    texts: { rows: ROWS },
    stored: '4ab96f6bd00144b1ba137c783515f2c466a9bccea91a6906a2f572b3306b30a3',
    behaviour: '9b5d22f54147646e99d896b2526d5142e4b9ef066cf069af033e5533244bcc5b',
  },
  {
    case: 'edit',
    entry: { name: 'qb', family: 'quixbugs', path: 'q.jsonl', prompt: 'edit' },
    texts: { rows: ROWS },
    stored: '90db537ff3cceb706491c0cce08bed800c3a126c5a5ea22f9210669d56e556e6',
    behaviour: '38eaa1ed9699a7df23a21e83a8027b6c0a7a72a73e2fb5aaa05a4e21beb36233',
  },
];
