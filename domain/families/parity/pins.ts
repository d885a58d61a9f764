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
    behaviour: 'bd1de63b4bfaacf63d0b70642c9a8df087f203a766e65583758c01e454ac13f2',
  },
  {
    case: 'diff, 3 bugs',
    entry: { name: 'parity', family: 'parity', path: 'parity.jsonl', prompt: 'diff' },
    texts: { rows: jsonLines(['3']) },
    stored: '53fbcacd00454b92c8cc5d45eacceb92ed823d0b2e41f536ed8df9958bc6c5b8',
    behaviour: '139c53539c77867fff76247a2739f110e7e64b1d574381baf8345e0f3584391e',
  },
];
