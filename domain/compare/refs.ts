/** How a command line names a cell to compare: `<sweep>/<cell>`. */
import { SweepIdSchema } from '../sweep/config.js';

export interface CellRef {
  sweepId: string;
  cellId: string;
}

/** Cell ids hold `a-z 0-9 . _ -` (domain/sweep/ids.ts), like sweep ids. */
const CELL_ID = /^[a-z0-9][a-z0-9._-]*$/;

/** The reference's sweep and cell, or why it is not one (naming the reference). */
export function parseCellRef(ref: string): CellRef | { problem: string } {
  const slash = ref.indexOf('/');
  if (slash < 0) return { problem: `cell ${JSON.stringify(ref)}: expected <sweep>/<cell>, e.g. my-sweep/humaneval.gpt-x.direct.t0.2` };
  const sweepId = ref.slice(0, slash);
  const cellId = ref.slice(slash + 1);
  const sweep = SweepIdSchema.safeParse(sweepId);
  if (!sweep.success)
    return { problem: `cell ${JSON.stringify(ref)}: sweep id ${JSON.stringify(sweepId)} ${sweep.error.issues[0]!.message}` };
  if (!CELL_ID.test(cellId))
    return {
      problem: `cell ${JSON.stringify(ref)}: cell id ${JSON.stringify(cellId)} must be of a-z 0-9 . _ - starting with a letter or digit`,
    };
  return { sweepId, cellId };
}
