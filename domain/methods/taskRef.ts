/**
 * Which task of which cell a method's step works on: the one reference every library-using
 * method's workflow passes to its activities (plain data, so it travels through workflow history).
 */
import type { LlmEndpoint } from '../llm/request.js';
import type { MethodOptions } from './options.js';
import type { Sampling } from './sampling.js';

export interface MethodTaskRef {
  sweepId: string;
  cellId: string;
  datasetKey: string;
  libraryKey: string;
  taskIndex: number;
  endpoint: LlmEndpoint;
  /** The cell's sampling: final answers use it; exploration uses the options' temperature and top_p. */
  sampling: Sampling;
  options: MethodOptions;
}

/** Where a multi-step method's trace of one task is stored. */
export interface TraceTaskRef {
  sweepId: string;
  cellId: string;
  datasetKey: string;
  taskIndex: number;
}
