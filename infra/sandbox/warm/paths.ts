import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where scripts/install-warm-compilers.sh puts javatuples, the javac server and the C++ PCH. */
export const WARM_TOOLS_DIR = join(process.env.EXPLORA_TOOLS_DIR ?? resolve(dirname(fileURLToPath(import.meta.url)), '../../../.tools'), 'multiple');
