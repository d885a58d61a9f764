/**
 * What stored python-bugs problems must stay: for fixed rows, the bytes a sweep stores and what every
 * step makes of them read back (../pins.ts; checked by test/families/stored-artefacts.test.ts). A pin
 * changes only with a patched() change that keeps running sweeps readable (docs/workflow-versions.md).
 */
import { jsonLines, type StoredProblemPin } from '../pins.js';

const ROWS = jsonLines([
  '{"prompt_code":"def is_even(n):\\n    return n % 2 != 0","correct_code":"def is_even(n):\\n    return n % 2 == 0","task":"bin-op"}',
  '{"prompt_code":"def area(w, h):\\n    return w * w","correct_code":"def area(w, h):\\n    return w * h","task":"var-misuse"}',
]);

export const storedPins: StoredProblemPin[] = [
  {
    case: 'prompt',
    entry: { name: 'pb', family: 'python-bugs', path: 'pb.jsonl', prompt: 'prompt' },
    texts: { rows: ROWS },
    stored: 'cb62e41f7c1201e2c667456206ca37094ac43361907fa7d9489c6284360e3448',
    behaviour: '2582dffea563e5825be13f0cb4eff370b0ac8f50724bee75009528e3ec579641',
  },
  {
    case: 'edit',
    entry: { name: 'pb', family: 'python-bugs', path: 'pb.jsonl', prompt: 'edit' },
    texts: { rows: ROWS },
    stored: 'dd668e2cdc2447485b58aa192c7592c8742751e2e5f46e16d84b9e3af5ec42a9',
    behaviour: '2c62ff3fbb29326ace69d627f67ffc51433d056e26183eb7fdd468aff92ba29c',
  },
];
