// The workflow bundle's entry point: every workflow type a worker on the workflows queue runs.
export { generateDatasetWorkflow, datasetProgressQuery } from './generateDataset.js';
