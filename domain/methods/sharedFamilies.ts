/**
 * Names of request families that cells of different methods send byte for byte (see
 * domain/sweep/sharing.ts for why the sweep keeps such cells apart).
 */
import { formatTemperature } from '../sweep/ids.js';
import type { SharingCell } from './types.js';

/** The planner's requests (temperature 0): ExploraCoder's variants and self-repair's budget. */
export function planFamily(cell: SharingCell): string {
  return `plan:${cell.dataset}/${cell.model}`;
}

/** rag's answers at the cell's temperature: self-repair starts from them. */
export function ragAnswerFamily(cell: SharingCell): string {
  return `rag:${cell.dataset}/${cell.model}/t${formatTemperature(cell.temperature)}`;
}
