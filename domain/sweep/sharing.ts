/**
 * Cells of one sweep that send byte-identical LLM requests, and the order that keeps them apart.
 *
 * The LLM cache makes a request free the second time only once its first answer is stored. Two
 * cells running at the same time would both miss and both pay. Which cells share requests:
 * - every ExploraCoder variant plans (temperature 0) and reranks (temperature 0), and explores at
 *   the method options' temperature, not the cell's: all of them on one dataset and model share
 *   their plans, and the variants and temperatures share whole exploration chains;
 * - self-repair plans the same way (its budget) and starts from rag's first answer at the cell's
 *   temperature: it shares plans with ExploraCoder and answers with rag.
 * The sweep therefore never runs two cells that hold a family in common at the same time. A cell
 * on its own already keeps the model busy (its shards and tasks run in parallel), so running such
 * cells one after another costs little time and saves everything the later ones would resend.
 */
import { sharedRequestFamilies } from '../methods/registry.js';
import type { SharingCell } from '../methods/types.js';

// Each method kind names the families it sends (domain/methods/<kind>/index.ts).
export { sharedRequestFamilies, type SharingCell };

/**
 * Position in `pending` (cell indices in grid order) of the first cell none of whose families is
 * held by a running cell, and that does not wait for something else (`waits`: its model's
 * batches); -1 when every pending cell must wait. With nothing running nothing is held, so a
 * pending cell that waits for nothing else can always start then.
 */
export function nextStartableCell(
  pending: readonly number[],
  families: readonly (readonly string[])[],
  held: ReadonlySet<string>,
  waits: (cell: number) => boolean = () => false,
): number {
  return pending.findIndex((i) => !waits(i) && families[i]!.every((f) => !held.has(f)));
}
