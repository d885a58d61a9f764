import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/**
 * The real Python interpreter behind `python3`.
 *
 * A pyenv shim costs ~80 ms per start against ~9 ms for the interpreter itself, so everything that
 * starts Python (tests, the sandbox) resolves the shim once and then starts the binary directly.
 * `EXPLORA_PYTHON` overrides the lookup.
 */
export function resolvePythonExecutable(): string {
  if (cached) return cached;
  const override = process.env.EXPLORA_PYTHON;
  if (override) {
    if (!existsSync(override)) throw new Error(`EXPLORA_PYTHON=${override} does not exist`);
    cached = override;
    return cached;
  }
  let out: string;
  try {
    out = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
  } catch (err) {
    throw new Error(`no usable python3 on PATH (set EXPLORA_PYTHON to an interpreter): ${(err as Error).message}`);
  }
  if (!out || !existsSync(out)) throw new Error(`python3 reported sys.executable=${JSON.stringify(out)}, which does not exist`);
  cached = out;
  return cached;
}

const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The tools folder `npm run setup` installs into: EXPLORA_TOOLS_DIR, else the project's .tools. */
export function toolsDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.EXPLORA_TOOLS_DIR || path.join(PROJECT_ROOT, '.tools'));
}

/** The sandbox's venv (scripts/install-sandbox-python.sh): the base interpreter plus pinned numpy and pandas. */
export function sandboxVenvPython(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(toolsDir(env), 'sandbox-python', 'bin', 'python');
}

/**
 * The interpreter programs run with in the sandbox: `EXPLORA_PYTHON` when set, else the sandbox's
 * venv when installed (MonkeyEval / BeatNumEval need its numpy and pandas), else the real python3.
 * The venv's `python` is a symlink to the real binary, so no shim cost either way.
 */
export function resolveSandboxPython(): string {
  if (process.env.EXPLORA_PYTHON) return resolvePythonExecutable();
  const venv = sandboxVenvPython();
  return existsSync(venv) ? venv : resolvePythonExecutable();
}
