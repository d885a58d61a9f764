/**
 * What stored santacoder-fim problems must stay: for fixed rows, the bytes a sweep stores and what every step
 * makes of them read back (../pins.ts; checked by test/families/stored-artefacts.test.ts). A pin
 * changes only with a patched() change that keeps running sweeps readable (docs/workflow-versions.md).
 */
import { jsonLines, type StoredProblemPin } from '../pins.js';

export const storedPins: StoredProblemPin[] = [
  {
    case: 'rows',
    entry: { name: 'fim', family: 'santacoder-fim', path: 'fim.parquet' },
    texts: {
      rows: jsonLines([
        '{"name":"humaneval-HumanEval_53_add-L6","language":"py","prompt":"def add(x: int, y: int) -> int:\\n    \\"\\"\\"Add two numbers x and y\\n    >>> add(2, 3)\\n    5\\n    \\"\\"\\"\\n","suffix":"\\n    return total\\n","canonical_solution":"    total = x + y","tests":"\\ndef check(candidate):\\n    assert candidate(2, 3) == 5\\n\\ncheck(add)\\n"}',
        '{"name":"humaneval-HumanEval_53_add-L8","language":"py","prompt":"def add(x: int, y: int) -> int:\\n    \\"\\"\\"Add two numbers x and y\\n    >>> add(2, 3)\\n    5\\n    \\"\\"\\"\\n    total = x + y\\n","suffix":"","canonical_solution":"    return total","tests":"\\ndef check(candidate):\\n    assert candidate(2, 3) == 5\\n\\ncheck(add)\\n"}',
        '{"name":"humaneval-HumanEval_23_strlen-L5","language":"js","prompt":"//Return length of given string\\n// >>> strlen(\\"abc\\")\\n// 3\\nfunction strlen(string){\\n","suffix":"    for (const _ of string) n++;\\n    return n;\\n}\\n","canonical_solution":"    let n = 0;","tests":"\\nconst assert = require(\\"node:assert\\");\\nassert.deepEqual(strlen(\\"abc\\"), 3);\\n"}',
        '{"name":"humaneval-HumanEval_23_strlen-L6","language":"js","prompt":"//Return length of given string\\n// >>> strlen(\\"abc\\")\\n// 3\\nfunction strlen(string){\\n    let n = 0;","suffix":"    return n;\\n}\\n","canonical_solution":"    for (const _ of string) n++;","tests":"\\nconst assert = require(\\"node:assert\\");\\nassert.deepEqual(strlen(\\"abc\\"), 3);\\n"}',
        '{"name":"humaneval-HumanEval_23_strlen-L7","language":"js","prompt":"//Return length of given string\\n// >>> strlen(\\"abc\\")\\n// 3\\nfunction strlen(string){\\n    let n = 0;\\n    for (const _ of string) n++;","suffix":"}\\n","canonical_solution":"    return n;","tests":"\\nconst assert = require(\\"node:assert\\");\\nassert.deepEqual(strlen(\\"abc\\"), 3);\\n"}',
        '{"name":"humaneval-HumanEval_23_strlen-L8","language":"js","prompt":"//Return length of given string\\n// >>> strlen(\\"abc\\")\\n// 3\\nfunction strlen(string){\\n    let n = 0;\\n    for (const _ of string) n++;\\n    return n;","suffix":"","canonical_solution":"}","tests":"\\nconst assert = require(\\"node:assert\\");\\nassert.deepEqual(strlen(\\"abc\\"), 3);\\n"}',
        '{"name":"humaneval-HumanEval_13_greatest_common_divisor-L4","language":"java","prompt":"import java.util.*;\\nclass Problem {\\n    public static long greatestCommonDivisor(long a, long b) {\\n","suffix":"        return a;\\n    }\\n}","canonical_solution":"        while (b != 0) { long t = a % b; a = b; b = t; }","tests":"    public static void main(String[] args) {\\n    assert(greatestCommonDivisor((3l), (7l)) == (1l));\\n    }\\n\\n}\\n"}',
        '{"name":"humaneval-HumanEval_13_greatest_common_divisor-L5","language":"java","prompt":"import java.util.*;\\nclass Problem {\\n    public static long greatestCommonDivisor(long a, long b) {\\n        while (b != 0) { long t = a % b; a = b; b = t; }","suffix":"    }\\n}","canonical_solution":"        return a;","tests":"    public static void main(String[] args) {\\n    assert(greatestCommonDivisor((3l), (7l)) == (1l));\\n    }\\n\\n}\\n"}',
        '{"name":"humaneval-HumanEval_13_greatest_common_divisor-L6","language":"java","prompt":"import java.util.*;\\nclass Problem {\\n    public static long greatestCommonDivisor(long a, long b) {\\n        while (b != 0) { long t = a % b; a = b; b = t; }\\n        return a;","suffix":"}","canonical_solution":"    }","tests":"    public static void main(String[] args) {\\n    assert(greatestCommonDivisor((3l), (7l)) == (1l));\\n    }\\n\\n}\\n"}',
        '{"name":"humaneval-HumanEval_13_greatest_common_divisor-L7","language":"java","prompt":"import java.util.*;\\nclass Problem {\\n    public static long greatestCommonDivisor(long a, long b) {\\n        while (b != 0) { long t = a % b; a = b; b = t; }\\n        return a;\\n    }","suffix":"","canonical_solution":"}","tests":"    public static void main(String[] args) {\\n    assert(greatestCommonDivisor((3l), (7l)) == (1l));\\n    }\\n\\n}\\n"}',
      ]),
    },
    stored: 'b956e4a529fd08ec0b0ecac8d58baa13b57452630f0f543d139bada68eade800',
    behaviour: '6a9cb415ce0465135f4cbf260cedfdecef0ed11e332b0d81da52546374fc45ab',
  },
];
