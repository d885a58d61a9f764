/**
 * The ids of the task families, as the `family:` tag of a sweep config's datasets and the `family`
 * of each stored problem. Kept apart from registry.ts because stored problems (which every family
 * produces) carry the id: each id must have a definition there, or registry.ts does not compile.
 */
import { z } from 'zod';

export const FAMILY_IDS = [
  'humaneval',
  'pbe-world',
  'renamed-library',
  'mbpp',
  'evalplus',
  'apps',
  'ds1000',
  'multipl-e',
  'torchdata',
  'pal',
  'classification',
  'conala',
  'concode',
  'spider',
  'code-to-text',
  'santacoder-fim',
  'text-to-text',
  'livecodebench',
  'quixbugs',
  'parity',
  'python-bugs',
  'instruct-wizard-humaneval',
  'instruct-humaneval',
  'humanevalpack',
  'recode',
  'mercury',
  'studenteval',
  'humanevalexplain',
  'bigcodebench',
] as const;
export const FamilyIdSchema = z.enum(FAMILY_IDS);
export type FamilyId = z.infer<typeof FamilyIdSchema>;
