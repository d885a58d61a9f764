/**
 * What stored renamed-library problems must stay: for fixed rows, the bytes a sweep stores and what every step
 * makes of them read back (../pins.ts; checked by test/families/stored-artefacts.test.ts). A pin
 * changes only with a patched() change that keeps running sweeps readable (docs/workflow-versions.md).
 */
import type { StoredProblemPin } from '../pins.js';

export const storedPins: StoredProblemPin[] = [
  {
    case: 'Monkey: its first 12 rows, pandas keywords and mapping',
    entry: {
      name: 'monkey',
      family: 'renamed-library',
      path: 'm.jsonl.gz',
      program_form: 'prompt_plus_completion',
      library: { private_library: 'monkey', keywords: 'k.jsonl', mapping: 'm.json' },
    },
    texts: {
      rows: { reference: 'private-library/real_monkey_eval_v3.jsonl.gz', firstLines: 12 },
      keywords: { reference: 'private-library/pandas_keywords.jsonl' },
      mapping: { reference: 'private-library/pandas_keyword_mapping.json' },
    },
    stored: '61a6cab5a56687b47449a8299471423ed905f94fce5ebfd4c8ebb34ec6f7ebc9',
    behaviour: 'aabcb30ee237c37ba7531e1eb88ad5b9bf66e382f1d70a3173555e85ff0fb553',
  },
];
