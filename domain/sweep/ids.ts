/**
 * Identifiers of sweep cells. A cell id is used in S3 keys and Temporal workflow ids, so it only
 * holds `a-z 0-9 . _ -` (dataset names and model ids are restricted to those characters, method
 * names are registry keys, temperatures are written with digits, `.`, and possibly `e-`).
 */

/**
 * A temperature as written in ids: the shortest decimal that reads back as the same number (so
 * 0.8, 0.80 and 8e-1 in a config all give "0.8", while distinct numbers never share a string).
 */
export function formatTemperature(temperature: number): string {
  if (!Number.isFinite(temperature)) throw new RangeError(`temperature must be finite, got ${temperature}`);
  return String(temperature === 0 ? 0 : temperature); // -0 → "0"
}

/**
 * `<dataset>.<model>.<method>.t<temperature>`, e.g. `humaneval.gpt-x.direct.t0.8`, and
 * `.p-<prompt>` after it in sweeps with a `prompts:` axis (prompt names have no dots; without the
 * axis ids are what they were before it existed, so such sweeps resume). Names may contain dots
 * themselves, so two different cells could in principle spell the same id (`a.b` + `c` vs
 * `a` + `b.c`); config validation refuses such grids.
 */
export function cellId(dataset: string, model: string, method: string, temperature: number, prompt: string | null = null): string {
  const base = `${dataset}.${model}.${method}.t${formatTemperature(temperature)}`;
  return prompt === null ? base : `${base}.p-${prompt}`;
}

/** The one cell of a dataset in an evaluate-only sweep: loaded generations belong to no model. */
export function loadedCellId(dataset: string): string {
  return `${dataset}.loaded`;
}
