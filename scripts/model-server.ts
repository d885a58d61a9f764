/**
 * `node --import tsx scripts/model-server.ts [--host 127.0.0.1] [--port 8090] [--model PATH] [--slots 8]`
 * (`npm run model-server`): serves a local model over the OpenAI API (POST /v1/chat/completions,
 * /v1/completions, /v1/embeddings; GET /v1/models, /health) until Ctrl-C or SIGTERM (the first stops it: requests still waiting are
 * answered 503, for their clients to retry; later ones are ignored). Prints the base URL on stdout
 * when ready.
 * Weights: `bash scripts/install-model.sh`.
 */
import { Command, InvalidArgumentError } from 'commander';
import { DEFAULT_SLOTS, modelPathFromEnv, startModelServer } from '../stack/model-server/index.js';
import { onStopSignals } from '../infra/stopSignals.js';

function intOption(name: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}`);
    return n;
  };
}

function threadsOption(value: string): number | 'auto' {
  return value === 'auto' ? 'auto' : intOption('--threads', 1, 256)(value);
}

function envInt(name: string, fallback: number, min: number, max: number, what: string): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    console.error(`model-server: ${name} must be ${what} (${min}-${max}), got '${raw}'`);
    process.exit(1);
  }
  return n;
}

/** Most slots accepted: each holds a whole context's cache (~96 MiB for the default model). */
const MAX_SLOTS = 256;

const program = new Command('model-server')
  .description('Serve a local GGUF model (llama.cpp, CPU) over the OpenAI API')
  .option('--host <host>', 'address to listen on', '127.0.0.1')
  .option(
    '--port <port>',
    'port (env EXPLORA_MODEL_PORT); 0 picks a free one',
    intOption('--port', 0, 65535),
    envInt('EXPLORA_MODEL_PORT', 8090, 0, 65535, 'a port number'),
  )
  .option('--model <path>', 'GGUF file (env EXPLORA_MODEL_PATH; default: what scripts/install-model.sh installed)', modelPathFromEnv())
  .option('--model-id <id>', 'id clients send as `model` (default: the file name without .gguf)')
  .option(
    '--context-size <tokens>',
    "prompt plus completion tokens per request (default: the model's, at most 8192)",
    intOption('--context-size', 16, 1 << 20),
  )
  .option(
    '--threads <n|auto>',
    "llama.cpp CPU threads; 'auto': per decode step, the cores other processes leave free (at most 2)",
    threadsOption,
    'auto',
  )
  .option(
    '--slots <n>',
    'sequences decoded together (n choices and concurrent requests), each with a cache of --context-size tokens (env EXPLORA_MODEL_SLOTS)',
    intOption('--slots', 1, MAX_SLOTS),
    envInt('EXPLORA_MODEL_SLOTS', DEFAULT_SLOTS, 1, MAX_SLOTS, 'a number of sequences'),
  )
  .option('--max-queue <n>', 'requests that may wait for a slot before the server answers 429', intOption('--max-queue', 0, 100_000), 32)
  .option('--quiet', 'no per-request log lines on stderr')
  .action(
    async (opts: {
      host: string;
      port: number;
      model: string;
      modelId?: string;
      contextSize?: number;
      threads: number | 'auto';
      slots: number;
      maxQueue: number;
      quiet?: boolean;
    }) => {
      const log = (line: string) => console.error(`model-server: ${line}`);
      const started = Date.now();
      const server = await startModelServer({
        host: opts.host,
        port: opts.port,
        modelPath: opts.model,
        threads: opts.threads,
        slots: opts.slots,
        maxQueue: opts.maxQueue,
        ...(opts.modelId ? { modelId: opts.modelId } : {}),
        ...(opts.contextSize ? { contextSize: opts.contextSize } : {}),
        log: opts.quiet ? (line) => (line.startsWith('llama.cpp') ? log(line) : undefined) : log,
      });
      log(`model ${server.modelId} (${opts.model}) loaded in ${((Date.now() - started) / 1000).toFixed(1)} s, ${opts.slots} slots`);
      console.log(server.url);
      onStopSignals('model-server', {
        onFirst: (signal) => {
          log(`${signal}: stopping`);
          server.close().then(
            () => process.exit(0),
            (err: Error) => {
              log(`error while stopping: ${err.message}`);
              process.exit(1);
            },
          );
        },
        waitingFor: () => 'its requests to be answered',
      });
    },
  );

program.parseAsync().catch((err: Error) => {
  console.error(`model-server: ${err.message}`);
  process.exit(1);
});
