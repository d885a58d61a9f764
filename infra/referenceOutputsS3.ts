/** The bucket's store of reference outputs (see referenceOutputs.ts). */
import type { ReferenceOutputsStore } from './referenceOutputs.js';
import { getText, putObject, type Bucket } from './s3.js';

/** The bucket's cache, shared by every sweep of the bucket. */
export function s3ReferenceOutputs(bucket: Bucket): ReferenceOutputsStore {
  const key = (hash: string) => `cache/reference-outputs/${hash}.json`;
  return {
    get: (hash) => getText(bucket, key(hash)),
    put: async (hash, outputs) => {
      await putObject(bucket, key(hash), outputs, { contentType: 'application/json' });
    },
  };
}
