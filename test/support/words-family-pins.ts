/**
 * What domain/families/words/pins.ts would hold for the throwaway family of test/support/words-family.ts
 * (the types: domain/families/pins.ts): fixed rows, the bytes a sweep stores for them and what every
 * step makes of them read back. test/families/throwaway-family.test.ts finds it as a folder's pins
 * are found and checks it as stored-artefacts.test.ts checks every family's.
 */
import { jsonLines, type StoredProblemPin } from '../../domain/families/pins.js';

export const storedPins: StoredProblemPin[] = [
  {
    case: 'two words, repeat 2',
    entry: { name: 'w', family: 'words', path: 'words.jsonl', repeat: 2 },
    texts: {
      rows: jsonLines(['{"id":"w/0","word":"abc","method":"upper"}', '{"id":"w/1","word":"Hello World","method":"swapcase"}']),
    },
    stored: '4be110e004c9ac1d8661338825f1b3b472236a8e820d6ca6047f1272977f8cfa',
    behaviour: 'ea1ea65eec74a37e41c4e302dafc5297eb3ad80a27179e6b160ab557612a20b1',
  },
];
