/**
 * What stored recode problems must stay: for fixed rows, the bytes a sweep stores and what every
 * step makes of them read back (../pins.ts; checked by test/families/stored-artefacts.test.ts). A pin
 * changes only with a patched() change that keeps running sweeps readable (docs/workflow-versions.md).
 */
import { jsonLines, type StoredProblemPin } from '../pins.js';

const ROWS = jsonLines([
  '{"task_id":"HumanEval/23","prompt":"\\n\\ndef strlne(string: str) -> int:\\n    \\"\\"\\" Return length of given string\\n    \\"\\"\\"\\n\\n","entry_point":"strlne","canonical_solution":"    return len(string)\\n","test":"\\n\\ndef check(candidate):\\n    assert candidate(\'x\') == 1\\n","seed":0,"perturbation_name":"FuncRenameSwapChar"}',
  '{"task_id":"HumanEval/23","prompt":"\\n\\ndef srtlen(string: str) -> int:\\n    \\"\\"\\" Return length of given string\\n    \\"\\"\\"\\n","entry_point":"srtlen","canonical_solution":"    return len(string)\\n","test":"\\n\\ndef check(candidate):\\n    assert candidate(\'x\') == 1\\n","seed":1,"perturbation_name":"FuncRenameSwapChar","partial":null}',
]);

export const storedPins: StoredProblemPin[] = [
  {
    case: 'num_seeds 10 (every seed)',
    entry: { name: 'recode', family: 'recode', path: 'func_name.jsonl', num_seeds: 10 },
    texts: { rows: ROWS },
    stored: 'cbc273d47c11816151ce37d820209df32b0533c2fb3df3f1bd181ad0609d45a1',
    behaviour: '00c3b9d30911141a60c3610d5e33471f748de4a863b2b2de147e35c65001a735',
  },
  {
    case: 'num_seeds 1',
    entry: { name: 'recode', family: 'recode', path: 'func_name.jsonl', num_seeds: 1 },
    texts: { rows: ROWS },
    stored: '79dbfe01074df552d13a4f8dd471da943583d37e081f0eed9a0d8528305ce371',
    behaviour: 'a00cb36415aff5c5d606cecdcabe80400a29dcb1d52842e7c9238626d6dc09ea',
  },
];
