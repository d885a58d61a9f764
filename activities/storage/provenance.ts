/**
 * A cell's provenance (domain/sweep/provenance.ts), gathered when the cell is finalized: the worker's
 * explora version and commit and its runtime's versions (once per process), the sweep's stored
 * config (its hash, the model's endpoint and name), and the sha256 of the sweep's dataset copy.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { z } from 'zod';
import type { CellProvenance } from '../../domain/sweep/provenance.js';
import { sweepConfigKey } from '../../domain/sweep/keys.js';
import { resolveSandboxPython } from '../../infra/sandbox/python.js';
import { getBytes, getText, sha256Hex, type Bucket } from '../../infra/s3.js';

const run = promisify(execFile);
const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A tool's version: the first non-empty line it prints (javac and old g++ print to stderr); null when it is not there. */
async function versionOf(cmd: string, args: string[]): Promise<string | null> {
  try {
    const { stdout, stderr } = await run(cmd, args, { timeout: 15_000, encoding: 'utf8' });
    return (
      `${stdout}\n${stderr}`
        .split('\n')
        .map((l) => l.trim())
        .find(Boolean) ?? null
    );
  } catch {
    return null;
  }
}

let worker: Promise<Pick<CellProvenance, 'explora' | 'runtime'>> | undefined;

/** What this worker process runs: read once, the checkout and the machine do not change under it. */
function workerProvenance(): Promise<Pick<CellProvenance, 'explora' | 'runtime'>> {
  worker ??= (async () => {
    const version = (JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    const commit = await run('git', ['rev-parse', 'HEAD'], { cwd: PROJECT_ROOT, timeout: 15_000, encoding: 'utf8' }).then(
      (r) => r.stdout.trim() || null,
      () => null,
    );
    const runtime: Record<string, string> = { node: process.version };
    const tools: Array<[string, string, string[]]> = [
      ['python', resolveSandboxPython(), ['--version']],
      ['go', 'go', ['version']],
      ['rustc', 'rustc', ['--version']],
      ['javac', 'javac', ['-version']],
      ['g++', 'g++', ['--version']],
    ];
    for (const [name, cmd, args] of tools) {
      const v = await versionOf(cmd, args);
      if (v) runtime[name] = v;
    }
    return { explora: { version, commit }, runtime };
  })();
  return worker;
}

const StoredConfigSchema = z.looseObject({
  config_sha256: z.string().optional(),
  config: z
    .looseObject({
      models: z.array(z.looseObject({ id: z.string(), base_url: z.string().optional(), model: z.string().optional() })).optional(),
    })
    .optional(),
});

export interface ProvenanceInput {
  sweepId: string;
  datasetKey: string;
  modelId: string;
  /** The cell's prompt template record; undefined for loaded generations. */
  promptTemplate: unknown;
  /** The distinct `system_fingerprint`s of the cell's answers (none when the server sends none). */
  systemFingerprints: string[];
}

export async function cellProvenance(bucket: Bucket, input: ProvenanceInput): Promise<CellProvenance> {
  const configText = await getText(bucket, sweepConfigKey(input.sweepId));
  const parsed = configText === null ? null : StoredConfigSchema.safeParse(JSON.parse(configText));
  const stored = parsed?.success ? parsed.data : null;
  const model = stored?.config?.models?.find((m) => m.id === input.modelId);
  const dataset = await getBytes(bucket, input.datasetKey);
  return {
    ...(await workerProvenance()),
    config_sha256: stored?.config_sha256 ?? null,
    dataset_sha256: dataset === null ? null : sha256Hex(dataset),
    model:
      model?.base_url && model.model
        ? {
            endpoint: model.base_url,
            name: model.model,
            ...(input.systemFingerprints.length ? { system_fingerprints: input.systemFingerprints } : {}),
          }
        : null,
    prompt_template_sha256: input.promptTemplate === undefined ? null : sha256Hex(JSON.stringify(input.promptTemplate)),
  };
}
