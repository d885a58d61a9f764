/**
 * What a run of the toolchains computes once and a later run can reuse (start-up:
 * docs/benchmarks.md#start-up-of-multipl-es-languages): small JSON records under the tools
 * directory, each named by a hash of what it depends on and holding that description too, so that
 * a record is used only for exactly what made it. A record that cannot be read or does not parse
 * is ignored (and written again by whoever computes it); records are written to a temporary name
 * and renamed, so that concurrent runs each replace a whole file and none reads half of one.
 */
import { createHash } from 'node:crypto';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, delimiter, dirname, isAbsolute, join, parse } from 'node:path';
import type { z } from 'zod';

/** The file a record of `what` is kept in, under `dir`. */
export function keptFile(dir: string, what: unknown): string {
  return join(dir, `${createHash('sha256').update(JSON.stringify(what)).digest('hex').slice(0, 24)}.json`);
}

/** The record kept for `what` in `dir`, if there is one made for exactly `what` and it parses. */
export function readKept<T>(dir: string, what: unknown, schema: z.ZodType<T>): T | undefined {
  let text: string;
  try {
    text = readFileSync(keptFile(dir, what), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const record = JSON.parse(text) as { what?: unknown; value?: unknown };
    if (JSON.stringify(record.what) !== JSON.stringify(what)) return undefined;
    const parsed = schema.safeParse(record.value);
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Keeps `value` for `what` in `dir` (temporary file, then rename); false when it cannot (a read-only tools directory). */
export function keep(dir: string, what: unknown, value: unknown): boolean {
  const file = keptFile(dir, what);
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(tmp, JSON.stringify({ what, value }) + '\n');
    renameSync(tmp, file);
    return true;
  } catch {
    rmSync(tmp, { force: true });
    return false;
  }
}

export interface FileIdentity {
  file: string;
  ino: number;
  size: number;
  mtimeMs: number;
}

/** A file's identity after symlinks (path, inode, size, mtime): what changes when it is replaced or rewritten. Undefined when absent. */
export function fileIdentity(file: string): FileIdentity | undefined {
  try {
    const real = realpathSync(file);
    const stat = statSync(real);
    return stat.isFile() ? { file: real, ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A directory's identity after symlinks (path, inode, mtime): its mtime changes when an entry is
 * added, removed or renamed in it (a package installed or removed), not when a file deep inside is
 * rewritten. Undefined when absent.
 */
export function directoryIdentity(dir: string): Omit<FileIdentity, 'size'> | undefined {
  try {
    const real = realpathSync(dir);
    const stat = statSync(real);
    return stat.isDirectory() ? { file: real, ino: stat.ino, mtimeMs: stat.mtimeMs } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The real file `command` runs (looked up on `path` as execvp does), with what changes when the
 * file is replaced or rewritten: its path, inode, size and modification time. Undefined when it is
 * not found.
 */
export function binaryIdentity(command: string, path: string): FileIdentity | undefined {
  const candidates = command.includes('/') ? [command] : path.split(delimiter).map((dir) => join(dir || '.', command));
  for (const candidate of candidates) {
    if (!isAbsolute(candidate) && !command.includes('/')) continue;
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    const identity = fileIdentity(candidate);
    if (identity) return identity;
  }
  return undefined;
}

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

/**
 * What rustup's proxy (`rustc` as a link to `rustup`) consults before it runs a toolchain's rustc,
 * for a probe run with `home` as HOME in `cwd`: its settings file (the default toolchain, the
 * directory overrides), the `rust-toolchain` files from `cwd` up, and every installed toolchain's
 * rustc (`rustup update` replaces it). With these in a kept probe's key, a change to any of them is
 * probed again, as a replaced binary is. Undefined when `binary` is not rustup: the binary alone is
 * then the key. RUSTUP_HOME and RUSTUP_TOOLCHAIN are not read: probes run without them.
 */
export function rustupContext(binary: string, home: string, cwd: string): Record<string, unknown> | undefined {
  if (!/^rustup(-init)?$/.test(basename(binary))) return undefined;
  const rustupHome = join(home, '.rustup');
  const contentOf = (file: string) => {
    try {
      return sha256(readFileSync(file));
    } catch {
      return null;
    }
  };
  const toolchainFiles: Array<[string, string | null]> = [];
  for (let dir = cwd; ; dir = dirname(dir)) {
    for (const name of ['rust-toolchain', 'rust-toolchain.toml']) {
      const file = join(dir, name);
      if (existsSync(file)) toolchainFiles.push([file, contentOf(file)]);
    }
    if (dir === parse(dir).root) break;
  }
  let toolchains: string[] = [];
  try {
    toolchains = readdirSync(join(rustupHome, 'toolchains')).sort();
  } catch {
    // no toolchain installed: rustup's own answer (an error) is not kept anyway
  }
  return {
    rustupHome,
    settings: contentOf(join(rustupHome, 'settings.toml')),
    toolchainFiles,
    toolchains: toolchains.map((name) => [name, binaryIdentity(join(rustupHome, 'toolchains', name, 'bin', 'rustc'), '') ?? null]),
  };
}
