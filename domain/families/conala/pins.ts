/**
 * What stored conala problems must stay: for fixed rows, the bytes a sweep stores and what every step
 * makes of them read back (../pins.ts; checked by test/families/stored-artefacts.test.ts). A pin
 * changes only with a patched() change that keeps running sweeps readable (docs/workflow-versions.md).
 */
import { jsonLines, type StoredProblemPin } from '../pins.js';

export const storedPins: StoredProblemPin[] = [
  {
    case: 'rows',
    entry: { name: 'conala', family: 'conala', path: 'conala.parquet' },
    texts: {
      rows: jsonLines([
        '{"question_id":41067960,"intent":"How to convert a list of multiple integers into a single integer?","rewritten_intent":"concatenate elements of a list \'x\' of multiple integers to a single integer","snippet":"sum(d * 10 ** i for i, d in enumerate(x[::-1]))"}',
        '{"question_id":41067960,"intent":"How to convert a list of multiple integers into a single integer?","rewritten_intent":"convert a list of integers into a single integer","snippet":"r = int(\'\'.join(map(str, x)))"}',
        '{"question_id":4170655,"intent":"how to convert a datetime string back to datetime object?","rewritten_intent":null,"snippet":"datetime.strptime(\'2010-11-13 10:33:54.227806\', \'%Y-%m-%d %H:%M:%S.%f\')"}',
        '{"question_id":29565452,"intent":"Averaging the values in a dictionary based on the key","rewritten_intent":"get the average of a list values for each key in dictionary `d`)","snippet":"[(i, sum(j) / len(j)) for i, j in list(d.items())]"}',
      ]),
    },
    stored: 'd0db73a0a9e5b228b80a8cb56ed317c12f2aa1abb76c4dc9628be1a3c303e7bb',
    behaviour: 'b2a3ca78b24f69ebb06f89a68ba8317caebc233134e54c86a56b2572d549f773',
  },
];
