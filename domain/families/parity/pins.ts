/**
 * What stored parity problems must stay: for fixed rows, the bytes a sweep stores and what every
 * step makes of them read back (../pins.ts; checked by test/families/stored-artefacts.test.ts). A pin
 * changes only with a patched() change that keeps running sweeps readable (docs/workflow-versions.md).
 */
import { jsonLines, type StoredProblemPin } from '../pins.js';

export const storedPins: StoredProblemPin[] = [
  {
    case: 'prompt, 1 and 5 bugs',
    entry: { name: 'parity', family: 'parity', path: 'parity.jsonl', prompt: 'prompt' },
    texts: { rows: jsonLines(['1', '5']) },
    stored: 'bcee83885bbd54978086177d67118f027fe07637f48737e05cecdf89a1ae94d9',
    behaviour: '56d91813815f256fe559ce82d1fcae3c090791363f318eb52e68dea6c61dd18f',
  },
  {
    case: 'diff, 3 bugs',
    entry: { name: 'parity', family: 'parity', path: 'parity.jsonl', prompt: 'diff' },
    texts: { rows: jsonLines(['3']) },
    stored: '53fbcacd00454b92c8cc5d45eacceb92ed823d0b2e41f536ed8df9958bc6c5b8',
    behaviour: '49167c95aa69ad43127e0180ec1f352a4035c04e95ed67c0ff819d00e03e9b07',
  },
];
