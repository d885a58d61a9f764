/**
 * vitest global setup of the e2e projects: the workflow bundle every worker of the suite runs,
 * built once before any test (infra/temporal/workflowBundle.ts keeps it per version of the code).
 * Without it, the files that start first (the long sweeps, several at once) each found no bundle
 * and built one with webpack, about 3 CPU-s apiece, and the unit workflow files one per vitest
 * worker.
 */
import { keptWorkflowBundle, workflowBundleDir, WORKFLOWS_ENTRY } from '../../infra/temporal/workflowBundle.js';

export default async function setup(): Promise<void> {
  // Quiet: webpack's report of the build is not the suite's business; a failure still throws.
  const silent = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
  if (!(await keptWorkflowBundle(WORKFLOWS_ENTRY, workflowBundleDir(), silent)))
    throw new Error(`no workflow bundle of ${WORKFLOWS_ENTRY}`);
}
