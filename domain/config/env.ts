import { z } from 'zod';

/**
 * Every setting the project reads from the environment, with the defaults of the local stack
 * (`npm run stack:up`). Pointing at a real Temporal cluster and real S3 is a matter of setting these.
 */
const EnvSchema = z.object({
  TEMPORAL_ADDRESS: z.string().regex(/^[^\s:]+:\d+$/, 'must be host:port').default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  EXPLORA_TEMPORAL_UI: z.url().default('http://127.0.0.1:8233'),
  EXPLORA_TASK_QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, dot, dash, underscore only')
    .default('explora'),
  EXPLORA_S3_ENDPOINT: z.union([z.url(), z.literal('aws')]).default('http://127.0.0.1:8333'),
  EXPLORA_S3_REGION: z.string().min(1).default('us-east-1'),
  EXPLORA_S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a valid S3 bucket name')
    .default('explora'),
  EXPLORA_S3_ACCESS_KEY_ID: z.string().min(1).default('exploraadmin'),
  EXPLORA_S3_SECRET_ACCESS_KEY: z.string().min(1).default('explora-local-secret'),
});

export interface ExploraConfig {
  temporal: { address: string; namespace: string; uiUrl: string };
  taskQueues: TaskQueues;
  s3: {
    /** undefined = the SDK's own AWS endpoint resolution */
    endpoint: string | undefined;
    region: string;
    bucket: string;
    accessKeyId: string;
    secretAccessKey: string;
    forcePathStyle: boolean;
  };
}

/** Separate queues so LLM, sandbox and storage work can each be scaled and rate-limited on its own. */
export interface TaskQueues {
  workflows: string;
  storage: string;
  llm: string;
  sandbox: string;
}

export function taskQueuesFor(prefix: string): TaskQueues {
  return {
    workflows: `${prefix}-workflows`,
    storage: `${prefix}-storage`,
    llm: `${prefix}-llm`,
    sandbox: `${prefix}-sandbox`,
  };
}

export class ConfigError extends Error {}

export function parseConfig(env: Record<string, string | undefined>): ExploraConfig {
  // An empty variable means "not set", as in most shells' habits of `FOO= cmd`.
  const present = Object.fromEntries(
    Object.keys(EnvSchema.shape).flatMap((k) => (env[k] ? [[k, env[k]]] : [])),
  );
  const parsed = EnvSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}=${JSON.stringify(present[String(i.path[0])])}: ${i.message}`);
    throw new ConfigError(`invalid environment configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const endpoint = e.EXPLORA_S3_ENDPOINT === 'aws' ? undefined : e.EXPLORA_S3_ENDPOINT;
  return {
    temporal: { address: e.TEMPORAL_ADDRESS, namespace: e.TEMPORAL_NAMESPACE, uiUrl: e.EXPLORA_TEMPORAL_UI.replace(/\/$/, '') },
    taskQueues: taskQueuesFor(e.EXPLORA_TASK_QUEUE_PREFIX),
    s3: {
      endpoint,
      region: e.EXPLORA_S3_REGION,
      bucket: e.EXPLORA_S3_BUCKET,
      accessKeyId: e.EXPLORA_S3_ACCESS_KEY_ID,
      secretAccessKey: e.EXPLORA_S3_SECRET_ACCESS_KEY,
      // Self-hosted S3 servers (SeaweedFS, MinIO) want path-style URLs; AWS prefers virtual hosts.
      forcePathStyle: endpoint !== undefined,
    },
  };
}

export const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** EXPLORA_LOG_LEVEL (the Temporal SDK's logger), checked: a misspelt level is an error, not silence. */
export function logLevelFrom(env: Record<string, string | undefined>, fallback: LogLevel): LogLevel {
  const value = env.EXPLORA_LOG_LEVEL;
  if (!value) return fallback;
  const level = value.toUpperCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level)) throw new ConfigError(`invalid environment configuration:\n  EXPLORA_LOG_LEVEL=${JSON.stringify(value)}: must be one of ${LOG_LEVELS.join(', ')}`);
  return level as LogLevel;
}

/** Documentation of every variable, printed by `--help` of the scripts and quoted in the README. */
export const ENV_DOC: ReadonlyArray<[string, string, string]> = [
  ['TEMPORAL_ADDRESS', '127.0.0.1:7233', 'Temporal frontend host:port'],
  ['TEMPORAL_NAMESPACE', 'default', 'Temporal namespace'],
  ['EXPLORA_TEMPORAL_UI', 'http://127.0.0.1:8233', 'base URL of the Temporal Web UI, for links'],
  ['EXPLORA_TASK_QUEUE_PREFIX', 'explora', 'prefix of the task queues <p>-workflows, -storage, -llm, -sandbox'],
  ['EXPLORA_S3_ENDPOINT', 'http://127.0.0.1:8333', "S3 endpoint URL, or 'aws' for AWS's own"],
  ['EXPLORA_S3_REGION', 'us-east-1', 'S3 region'],
  ['EXPLORA_S3_BUCKET', 'explora', 'bucket for datasets, generations and results'],
  ['EXPLORA_S3_ACCESS_KEY_ID', 'exploraadmin', 'S3 access key (the local stack creates this identity)'],
  ['EXPLORA_S3_SECRET_ACCESS_KEY', 'explora-local-secret', 'S3 secret key'],
  ['EXPLORA_LOG_LEVEL', 'INFO (ERROR in scripts)', 'Temporal SDK log level: TRACE, DEBUG, INFO, WARN or ERROR'],
  ['EXPLORA_PYTHON', '.tools/sandbox-python', 'interpreter the sandbox runs programs with'],
];
