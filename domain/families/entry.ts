/** Pieces of a sweep config's dataset entry that every family's entry schema uses. */
import { z } from 'zod';

export const DATASET_PROGRAM_FORMS = ['prompt_plus_completion', 'full_program'] as const;
export type DatasetProgramForm = (typeof DATASET_PROGRAM_FORMS)[number];

export const DatasetEntryNameSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,99}$/, 'must be 1-100 of a-z 0-9 . _ - starting with a letter or digit');

const S3_URI = /^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]\/.+$/;

/** A local file with one of the given endings (relative to the config file) or an s3://bucket/key URI. */
export function localOrS3File(what: string, ending: RegExp) {
  return z.string().refine((p) => (p.startsWith('s3://') ? S3_URI.test(p) : ending.test(p)), {
    message: `must be a local ${what} file, or an s3://bucket/key URI`,
  });
}

export const JsonlFileSchema = localOrS3File('.jsonl or .jsonl.gz', /\.jsonl(\.gz)?$/);

/** Rows as JSON Lines or as Parquet (Hugging Face's files), which is read as JSON Lines of its rows (infra/datasetText.ts). */
export const RowsFileSchema = localOrS3File('.jsonl, .jsonl.gz or .parquet', /\.(jsonl(\.gz)?|parquet)$/);

export function programFormSchema(fallback: DatasetProgramForm) {
  return z.enum(DATASET_PROGRAM_FORMS).default(fallback);
}

/** The form problems are stored with. */
export function formOf(entry: { program_form: DatasetProgramForm }): 'completion' | 'full' {
  return entry.program_form === 'full_program' ? 'full' : 'completion';
}
