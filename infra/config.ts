/**
 * The configuration every entry point runs with: the environment, plus Temporal's connection file
 * when there is one (TEMPORAL_CONFIG_FILE, else Temporal's default path, read only if it exists).
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, parseConfig, type ExploraConfig } from '../domain/config/env.js';

/** Temporal's default location of the connection file (as the temporal CLI and SDKs look it up). */
export function defaultTemporalConfigPath(env: Record<string, string | undefined>): string | undefined {
  if (process.platform === 'win32') return env.APPDATA ? path.join(env.APPDATA, 'temporalio', 'temporal.toml') : undefined;
  if (process.platform === 'darwin')
    return env.HOME ? path.join(env.HOME, 'Library', 'Application Support', 'temporalio', 'temporal.toml') : undefined;
  const base =
    env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME)
      ? env.XDG_CONFIG_HOME
      : env.HOME
        ? path.join(env.HOME, '.config')
        : os.homedir() && path.join(os.homedir(), '.config');
  return base ? path.join(base, 'temporalio', 'temporal.toml') : undefined;
}

export function readTemporalConfigFile(env: Record<string, string | undefined>): { path: string; text: string } | undefined {
  const explicit = env.TEMPORAL_CONFIG_FILE || undefined;
  const file = explicit ?? defaultTemporalConfigPath(env);
  if (!file) return undefined;
  try {
    return { path: file, text: readFileSync(file, 'utf8') };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (!explicit && code === 'ENOENT') return undefined;
    throw new ConfigError(
      `invalid environment configuration:\n  TEMPORAL_CONFIG_FILE=${JSON.stringify(file)}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}`,
    );
  }
}

export function loadConfig(env: Record<string, string | undefined> = process.env): ExploraConfig {
  return parseConfig(env, { temporal: readTemporalConfigFile(env) });
}
