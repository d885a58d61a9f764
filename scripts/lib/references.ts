/**
 * The reference check of a sweep config's datasets, for `scripts/check-references.ts` and
 * `start-sweep --check-references`: each dataset read as the sweep reads it (its family, its files,
 * its task selection; PBE World generated here), its own solutions run in the sandbox.
 */
import { s3ReferenceOutputs } from '../../infra/referenceOutputsS3.js';
import { familyOf } from '../../domain/families/registry.js';
import type { LoadedDataset } from '../../domain/families/types.js';
import { generateLines } from '../../domain/pbe/generate.js';
import type { SweepConfig, SweepDatasetConfig } from '../../domain/sweep/config.js';
import { selectionOf, selectTasks } from '../../domain/sweep/selection.js';
import type { Bucket } from '../../infra/s3.js';
import { SandboxPool } from '../../infra/sandbox/pool.js';
import { checkReferences, type ReferenceCheck } from '../../infra/sandbox/referenceCheck.js';
import { progressBar } from './progress.js';
import { requirementsProblem } from './requirements.js';
import { loadDatasetEntry, SweepInputError } from './sweep-input.js';

async function loadForCheck(bucket: Bucket, configFile: string, entry: SweepDatasetConfig): Promise<LoadedDataset> {
  if (entry.family === 'pbe-world') {
    const rows = [...generateLines(entry.pbe_world, 0, entry.pbe_world.count)].join('');
    return familyOf(entry).load({ entry: entry, texts: { rows }, sources: { rows: `dataset ${entry.name} (generated)` } });
  }
  const loaded = await loadDatasetEntry(bucket, configFile, entry);
  if (!loaded) throw new Error(`dataset ${entry.name}: family ${entry.family} has no files to read`);
  return loaded;
}

export async function checkSweepReferences(
  config: SweepConfig,
  datasets: readonly SweepDatasetConfig[],
  opts: { bucket: Bucket; configFile: string; timeoutS: number; progress: boolean; log: (line: string) => void },
): Promise<Record<string, ReferenceCheck>> {
  const pool = new SandboxPool();
  try {
    const report: Record<string, ReferenceCheck> = {};
    const loaded = new Map<string, LoadedDataset>();
    for (const entry of datasets) loaded.set(entry.name, await loadForCheck(opts.bucket, opts.configFile, entry));
    // As a sweep does: tasks whose library the sandbox lacks (DS-1000's, TorchDataEval's) are refused before any runs.
    const missing = requirementsProblem(
      datasets.map((d) => ({ name: d.name, family: d.family, problems: loaded.get(d.name)!.problems })),
      (p) => familyOf(p).requirements(p),
    );
    if (missing) throw new SweepInputError(missing);
    for (const entry of datasets) {
      const dataset = loaded.get(entry.name)!;
      for (const note of dataset.notes) opts.log(note);
      const problems = selectTasks(dataset.problems, selectionOf(config), (p) => p.task_id);
      const bar = progressBar(`references ${entry.name}`, opts.progress);
      // evalplus's reference outputs land in the bucket's cache, where the sweep's shards find them.
      report[entry.name] = await checkReferences(problems, dataset.library, pool, {
        timeoutS: opts.timeoutS,
        onDone: (n) => bar.update(n, problems.length),
        references: s3ReferenceOutputs(opts.bucket),
      });
      bar.stop();
    }
    return report;
  } finally {
    await pool.close();
  }
}

/** Per dataset: how many references pass, then each failing task by id, with why. */
export function formatReferenceChecks(report: Record<string, ReferenceCheck>): string {
  const lines: string[] = [];
  for (const [name, r] of Object.entries(report)) {
    lines.push(`${name}: ${r.passed} of ${r.checked} references pass${r.without.length ? `; ${r.without.length} tasks have none` : ''}`);
    for (const f of r.failures) lines.push(`  ${f.task_id}: ${f.status}: ${f.message.split('\n')[0]}`);
  }
  return lines.join('\n');
}
