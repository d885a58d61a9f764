// The workflow bundle's entry point: every workflow type a worker on the workflows queue runs.
export { generateDatasetWorkflow } from './generateDataset.js';
export { sweepWorkflow } from './sweep.js';
export { sweepCellWorkflow } from './sweepCell.js';
export { sweepShardWorkflow } from './sweepShard.js';
export { spendLedgerWorkflow } from './spendLedger.js';
// Each method's task workflows (exploracoderTaskWorkflow, selfRepairTaskWorkflow, capirTaskWorkflow).
export * from '../methods/workflows.js';
export { batchAnswersWorkflow } from './batchAnswers.js';
export { batchRoundsWorkflow } from './batchRounds.js';
