/** Where scripts/install-model.sh puts the weights, and how the server names the model it serves. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The model install-model.sh installs when given no name. */
export const DEFAULT_MODEL_NAME = 'qwen2.5-coder-0.5b-instruct';

/** The models install-model.sh knows, by the name it gives their GGUF file. */
export const KNOWN_MODELS = ['qwen2.5-coder-0.5b-instruct', 'smollm2-135m-instruct'] as const;

/** `<tools>/model`, with the tools folder from EXPLORA_TOOLS_DIR (default `.tools`), as install-model.sh. */
export function modelDir(env: Record<string, string | undefined> = process.env): string {
  return path.join(path.resolve(env.EXPLORA_TOOLS_DIR || path.join(PROJECT_ROOT, '.tools')), 'model');
}

/** The GGUF install-model.sh writes for `name` (default: the default model). */
export function defaultModelPath(name: string = DEFAULT_MODEL_NAME, env: Record<string, string | undefined> = process.env): string {
  return path.join(modelDir(env), `${name}.gguf`);
}

/** The model the CLI serves: EXPLORA_MODEL_PATH if set, else the installed default. */
export function modelPathFromEnv(env: Record<string, string | undefined> = process.env): string {
  return env.EXPLORA_MODEL_PATH ? path.resolve(env.EXPLORA_MODEL_PATH) : defaultModelPath(DEFAULT_MODEL_NAME, env);
}

/** The id clients put in `model`: the file's name without `.gguf`. */
export function modelIdFor(modelPath: string): string {
  return path.basename(modelPath).replace(/\.gguf$/i, '');
}

/** Fails with the command that installs the model when its file is missing. */
export function assertModelFile(modelPath: string): void {
  if (existsSync(modelPath)) return;
  const name = modelIdFor(modelPath);
  const hint = (KNOWN_MODELS as readonly string[]).includes(name)
    ? `run: bash scripts/install-model.sh ${name}`
    : `known models are installed with bash scripts/install-model.sh [${KNOWN_MODELS.join('|')}]`;
  throw new Error(`model file ${modelPath} not found; ${hint}`);
}
