/**
 * What stored pbe-world problems must stay: for fixed rows, the bytes a sweep stores and what every step
 * makes of them read back (../pins.ts; checked by test/families/stored-artefacts.test.ts). A pin
 * changes only with a patched() change that keeps running sweeps readable (docs/workflow-versions.md).
 */
import { jsonLines, type StoredProblemPin } from '../pins.js';

export const storedPins: StoredProblemPin[] = [
  {
    case: 'three generated problems (count 3, seed 11)',
    entry: {
      name: 'pbe',
      family: 'pbe-world',
      pbe_world: {
        alphabet: ['a', 'b'],
        l_min: 5,
        l_max: 5,
        pipeline_L_min: 2,
        pipeline_L_max: 2,
        n_inputs_for_examples: 16,
        num_examples: 3,
        num_tests: 3,
        split: 'test',
        seed: 11,
        count: 3,
        library: 'python_str',
      },
      program_form: 'full_program',
    },
    texts: {
      rows: jsonLines([
        '{"task_id":"pbe-world/000000","entry_point":"apply_pipeline","prompt":"from typing import List\\n\\ndef apply_pipeline(s: str) -> str:\\n    \\"\\"\\"Apply a fixed string-manipulation pipeline to the input string `s`.\\n    \\n    The pipeline consists of several string method calls such as:\\n    \\n        s = s.replace(old, new)\\n        s = s.upper()\\n        s = s.lower()\\n        s = s.strip(chars)\\n    \\n    which are always applied in the same fixed order.\\n    \\n    Your task is to reverse-engineer this pipeline from the examples\\n    and implement it.\\n    \\n    Example input/output pairs:\\n    \\n        >>> apply_pipeline(\'abaab\') == \'ABB\'\\n        >>> apply_pipeline(\'aabba\') == \'BBA\'\\n        >>> apply_pipeline(\'aaaaa\') == \'A\'\\n    \\"\\"\\"\\n    raise NotImplementedError()\\n","canonical_solution":"def apply_pipeline(s: str) -> str:\\n    \\"\\"\\"Canonical solution (auto-generated).\\"\\"\\"\\n    s = s.upper()\\n    s = s.replace(\'AA\', \'\')\\n    return s\\n","canonical_pipeline":[{"method":"upper","args":[]},{"method":"replace","args":["AA",""]}],"test":"from typing import Callable\\n\\ndef check(candidate: Callable[[str], str]) -> None:\\n    # examples from the prompt\\n    assert candidate(\'abaab\') == \'ABB\'\\n    assert candidate(\'aabba\') == \'BBA\'\\n    assert candidate(\'aaaaa\') == \'A\'\\n\\n    # hidden tests\\n    assert candidate(\'abbaa\') == \'ABB\'\\n    assert candidate(\'baabb\') == \'BBB\'\\n    assert candidate(\'aaaab\') == \'B\'\\n","num_tests":6,"examples":[{"input":"abaab","output":"ABB"},{"input":"aabba","output":"BBA"},{"input":"aaaaa","output":"A"}],"tests":[{"input":"abbaa","output":"ABB"},{"input":"baabb","output":"BBB"},{"input":"aaaab","output":"B"}],"metadata":{"alphabet":["a","b"],"alphabet_size":2,"num_programs":1,"num_examples":3,"num_tests":3,"generation_params":{"n_inputs_for_examples":16,"l_min":5,"l_max":5,"pipeline_L_min":2,"pipeline_L_max":2},"split":"test","version":"1.0.0"}}',
        '{"task_id":"pbe-world/000001","entry_point":"apply_pipeline","prompt":"from typing import List\\n\\ndef apply_pipeline(s: str) -> str:\\n    \\"\\"\\"Apply a fixed string-manipulation pipeline to the input string `s`.\\n    \\n    The pipeline consists of several string method calls such as:\\n    \\n        s = s.replace(old, new)\\n        s = s.upper()\\n        s = s.lower()\\n        s = s.strip(chars)\\n    \\n    which are always applied in the same fixed order.\\n    \\n    Your task is to reverse-engineer this pipeline from the examples\\n    and implement it.\\n    \\n    Example input/output pairs:\\n    \\n        >>> apply_pipeline(\'aaaaa\') == \'AAAAA\'\\n        >>> apply_pipeline(\'bbbab\') == \'ABAB\'\\n        >>> apply_pipeline(\'aaaba\') == \'AAABA\'\\n    \\"\\"\\"\\n    raise NotImplementedError()\\n","canonical_solution":"def apply_pipeline(s: str) -> str:\\n    \\"\\"\\"Canonical solution (auto-generated).\\"\\"\\"\\n    s = s.replace(\'bbb\', \'ab\')\\n    s = s.upper()\\n    return s\\n","canonical_pipeline":[{"method":"replace","args":["bbb","ab"]},{"method":"upper","args":[]}],"test":"from typing import Callable\\n\\ndef check(candidate: Callable[[str], str]) -> None:\\n    # examples from the prompt\\n    assert candidate(\'aaaaa\') == \'AAAAA\'\\n    assert candidate(\'bbbab\') == \'ABAB\'\\n    assert candidate(\'aaaba\') == \'AAABA\'\\n\\n    # hidden tests\\n    assert candidate(\'babaa\') == \'BABAA\'\\n    assert candidate(\'bbbaa\') == \'ABAA\'\\n    assert candidate(\'baaab\') == \'BAAAB\'\\n","num_tests":6,"examples":[{"input":"aaaaa","output":"AAAAA"},{"input":"bbbab","output":"ABAB"},{"input":"aaaba","output":"AAABA"}],"tests":[{"input":"babaa","output":"BABAA"},{"input":"bbbaa","output":"ABAA"},{"input":"baaab","output":"BAAAB"}],"metadata":{"alphabet":["a","b"],"alphabet_size":2,"num_programs":1,"num_examples":3,"num_tests":3,"generation_params":{"n_inputs_for_examples":16,"l_min":5,"l_max":5,"pipeline_L_min":2,"pipeline_L_max":2},"split":"test","version":"1.0.0"}}',
        '{"task_id":"pbe-world/000002","entry_point":"apply_pipeline","prompt":"from typing import List\\n\\ndef apply_pipeline(s: str) -> str:\\n    \\"\\"\\"Apply a fixed string-manipulation pipeline to the input string `s`.\\n    \\n    The pipeline consists of several string method calls such as:\\n    \\n        s = s.replace(old, new)\\n        s = s.upper()\\n        s = s.lower()\\n        s = s.strip(chars)\\n    \\n    which are always applied in the same fixed order.\\n    \\n    Your task is to reverse-engineer this pipeline from the examples\\n    and implement it.\\n    \\n    Example input/output pairs:\\n    \\n        >>> apply_pipeline(\'ababb\') == \'\'\\n        >>> apply_pipeline(\'babaa\') == \'\'\\n        >>> apply_pipeline(\'aaaba\') == \'\'\\n    \\"\\"\\"\\n    raise NotImplementedError()\\n","canonical_solution":"def apply_pipeline(s: str) -> str:\\n    \\"\\"\\"Canonical solution (auto-generated).\\"\\"\\"\\n    s = s.replace(\'b\', \'ba\')\\n    s = s.strip(\'ab\')\\n    return s\\n","canonical_pipeline":[{"method":"replace","args":["b","ba"]},{"method":"strip","args":["ab"]}],"test":"from typing import Callable\\n\\ndef check(candidate: Callable[[str], str]) -> None:\\n    # examples from the prompt\\n    assert candidate(\'ababb\') == \'\'\\n    assert candidate(\'babaa\') == \'\'\\n    assert candidate(\'aaaba\') == \'\'\\n\\n    # hidden tests\\n    assert candidate(\'baaab\') == \'\'\\n    assert candidate(\'babbb\') == \'\'\\n    assert candidate(\'bbbbb\') == \'\'\\n","num_tests":6,"examples":[{"input":"ababb","output":""},{"input":"babaa","output":""},{"input":"aaaba","output":""}],"tests":[{"input":"baaab","output":""},{"input":"babbb","output":""},{"input":"bbbbb","output":""}],"metadata":{"alphabet":["a","b"],"alphabet_size":2,"num_programs":1,"num_examples":3,"num_tests":3,"generation_params":{"n_inputs_for_examples":16,"l_min":5,"l_max":5,"pipeline_L_min":2,"pipeline_L_max":2},"split":"test","version":"1.0.0"}}',
      ]),
    },
    stored: 'e922b91d62a7599e3972fded131e80125ae3676a096c19ddfecce8393d297d1b',
    behaviour: 'c6dbfd1c57523e19b80b6a0c012feca186c2f915ef2d245ed15ca8b3323a6b58',
  },
];
