/**
 * What stored torchdata problems must stay: for fixed rows, the bytes a sweep stores and what every step
 * makes of them read back (../pins.ts; checked by test/families/stored-artefacts.test.ts). A pin
 * changes only with a patched() change that keeps running sweeps readable (docs/workflow-versions.md).
 */
import { jsonLines, type StoredProblemPin } from '../pins.js';

export const storedPins: StoredProblemPin[] = [
  {
    case: 'rows and API docs',
    entry: { name: 'td', family: 'torchdata', path: 'td.jsonl', api_docs: 'td-docs.jsonl', program_form: 'prompt_plus_completion' },
    texts: {
      rows: jsonLines([
        '{"task_id": "TorchDataEval/0", "prompt": "from torchdata.datapipes.iter import IterableWrapper\\ndp = IterableWrapper(range(10))\\n# Keep only the first four items of the datapipe.\\nnew_dp =", "entry_point": "none", "canonical_solution": [" Header(dp, 4)", " dp.header(4)"], "test": "\\n\\nMETADATA = {\\n    \'author\': \'explora-tests\',\\n    \'dataset\': \'test\',\\n    \'type\': \'Header\'\\n}\\n\\n\\ndef check():\\n    assert list(new_dp) == [0, 1, 2, 3]\\n\\n"}',
        '{"task_id": "TorchDataEval/1", "prompt": "from torchdata.datapipes.iter import IterableWrapper\\ndp = IterableWrapper([\'x\', \'y\'])\\n# Pair every item with its position.\\nnew_dp =", "entry_point": "none", "canonical_solution": [" dp.enumerate()"], "test": "\\n\\nMETADATA = {\\n    \'author\': \'explora-tests\',\\n    \'dataset\': \'test\',\\n    \'type\': \'Enumerator\'\\n}\\n\\n\\ndef check():\\n    assert list(new_dp) == [(0, \'x\'), (1, \'y\')]\\n\\n"}',
      ]),
      api_docs: jsonLines([
        '{"import_path":"torchdata.datapipes.iter.Header","name":"Header","signature":"Header(dp, limit=10)","description":"The first items."}',
      ]),
    },
    stored: '1924c87e4fe81ddf8ac8a64306ee4d5d0bbb856a79d15ea29e74161c60c01c3b',
    behaviour: 'a5a61cb19a6124e58e4c1aa7310fe880f0bc751eff5c3bbfe72aa435aa5e6e6d',
  },
];
