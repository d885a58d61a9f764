/**
 * Where a cell's numbers come from: explora's version, the config, the dataset's bytes, the model's
 * endpoint and name, the prompt template, and the runtime's versions. Recorded in each cell's
 * results (activities/storage/provenance.ts), shown by the report, and compared by compare.ts, which
 * warns when two compared cells differ in more than the factor compared.
 */
import { z } from 'zod';

export const CellProvenanceSchema = z.object({
  /** package.json's version and the git commit of the worker's checkout (null outside a git checkout). */
  explora: z.object({ version: z.string(), commit: z.string().nullable() }),
  /** The sweep's config hash (results.json's config_sha256): equal only within one sweep's config. */
  config_sha256: z.string().nullable(),
  /** sha256 of the sweep's copy of the dataset (sweeps/<id>/datasets/<name>.jsonl): the tasks as run. */
  dataset_sha256: z.string().nullable(),
  /** The model's endpoint and the name sent to it; null when the config does not name them (loaded generations). */
  model: z
    .object({
      endpoint: z.string(),
      name: z.string(),
      /**
       * The distinct `system_fingerprint`s the server sent with the cell's answers (OpenAI's names its
       * backend configuration); absent when it sent none. Several: the backend changed mid-cell.
       */
      system_fingerprints: z.array(z.string()).optional(),
    })
    .nullable(),
  /** sha256 of the prompt template record (the model's template, or "default"); null for loaded generations. */
  prompt_template_sha256: z.string().nullable(),
  /**
   * Versions (each tool's own first line) of what programs ran with on the worker that finalized the
   * cell: node, the sandbox's python, and the compilers found (go, rustc, javac, g++).
   */
  runtime: z.record(z.string(), z.string()),
});
export type CellProvenance = z.infer<typeof CellProvenanceSchema>;

/** Provenance fields flattened to `a.b` paths and their values, for comparing and showing. */
export function provenanceFields(p: CellProvenance): Record<string, string> {
  const out: Record<string, string> = {
    'explora.version': p.explora.version,
    'explora.commit': p.explora.commit ?? '-',
    config_sha256: p.config_sha256 ?? '-',
    dataset_sha256: p.dataset_sha256 ?? '-',
    'model.endpoint': p.model?.endpoint ?? '-',
    'model.name': p.model?.name ?? '-',
    prompt_template_sha256: p.prompt_template_sha256 ?? '-',
  };
  // Only where the server sent one: most local servers send none.
  if (p.model?.system_fingerprints?.length) out['model.system_fingerprint'] = p.model.system_fingerprints.join(', ');
  for (const [tool, version] of Object.entries(p.runtime)) out[`runtime.${tool}`] = version;
  return out;
}

/** The fields a change of each compared factor is expected to change. */
const EXPLAINED_BY: Record<string, readonly string[]> = {
  dataset: ['dataset_sha256'],
  model: ['model.endpoint', 'model.name', 'model.system_fingerprint', 'prompt_template_sha256'],
  prompt: ['prompt_template_sha256'],
};

/**
 * The provenance fields two cells differ in that the factors they differ in do not explain, e.g.
 * the explora commit or Python version of two cells compared for their method. The config hash is
 * left out: two sweeps' configs always differ (the grid is in them); what matters of it is compared
 * field by field. A cell without provenance (results stored before it existed) gives no differences.
 */
export function unexplainedDifferences(
  a: CellProvenance | undefined,
  b: CellProvenance | undefined,
  differingFactors: readonly string[],
): Array<{ field: string; a: string; b: string }> {
  if (!a || !b) return [];
  const fa = provenanceFields(a);
  const fb = provenanceFields(b);
  const explained = new Set(['config_sha256', ...differingFactors.flatMap((f) => EXPLAINED_BY[f] ?? [])]);
  const fields = [...new Set([...Object.keys(fa), ...Object.keys(fb)])];
  return fields
    .filter((f) => !explained.has(f) && (fa[f] ?? '-') !== (fb[f] ?? '-'))
    .map((f) => ({ field: f, a: fa[f] ?? '-', b: fb[f] ?? '-' }));
}
