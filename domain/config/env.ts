import { z } from 'zod';
import { resolveTemporalConnection, TemporalSettingsError, type TemporalConnectionSettings } from './temporalConnection.js';

/**
 * Temporal payloads (workflow and activity inputs and results, heartbeat details) larger than this
 * go to S3 and travel through histories as a claim (infra/temporal/payloadStorage.ts). The SDK's
 * default; Temporal warns from 512 KiB and refuses over 2 MiB per payload.
 */
export const DEFAULT_OFFLOAD_BYTES = 256 * 1024;
const MAX_OFFLOAD_BYTES = 1024 * 1024;

/**
 * Every setting the project reads from the environment, with the defaults of the local stack
 * (`npm run stack:up`). Pointing at a real Temporal cluster and real S3 is a matter of setting these.
 */
const EnvSchema = z.object({
  EXPLORA_TEMPORAL_UI: z.url().default('http://127.0.0.1:8233'),
  EXPLORA_TASK_QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, dot, dash, underscore only')
    .default('explora'),
  EXPLORA_TEMPORAL_OFFLOAD_BYTES: z
    .string()
    .regex(/^\d+$/, 'a whole number of bytes (0: every payload)')
    .transform(Number)
    .refine((n) => n <= MAX_OFFLOAD_BYTES, `at most ${MAX_OFFLOAD_BYTES} (Temporal refuses payloads over 2 MiB)`)
    .default(DEFAULT_OFFLOAD_BYTES),
  EXPLORA_S3_ENDPOINT: z.union([z.url(), z.literal('aws')]).default('http://127.0.0.1:8333'),
  EXPLORA_S3_REGION: z.string().min(1).optional(),
  AWS_REGION: z.string().min(1).optional(),
  EXPLORA_S3_FORCE_PATH_STYLE: z.enum(['true', 'false'], { message: 'must be true or false' }).optional(),
  EXPLORA_S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a valid S3 bucket name')
    .default('explora'),
  EXPLORA_S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  EXPLORA_S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
});

/** The identity the local stack's SeaweedFS is created with (stack/local-stack.ts). */
export const LOCAL_STACK_S3_KEYS = { accessKeyId: 'exploraadmin', secretAccessKey: 'explora-local-secret' } as const;

/**
 * Where S3 credentials come from: static keys (EXPLORA_S3_ACCESS_KEY_ID/SECRET, or the local
 * stack's when no endpoint is set), else the AWS SDK's default chain: AWS_ACCESS_KEY_ID..., the
 * shared config and credentials files (AWS_PROFILE), web identity (EKS IRSA), container (ECS, EKS
 * Pod Identity) and instance (EC2 IMDS) roles.
 */
export type S3Credentials = { kind: 'static'; accessKeyId: string; secretAccessKey: string; source: string } | { kind: 'default-chain' };

export interface ExploraConfig {
  temporal: {
    address: string;
    namespace: string;
    uiUrl: string;
    /** Everything needed to open a connection (infra/temporal/connection.ts builds it). */
    connection: TemporalConnectionSettings;
    /** Payloads over this many bytes are stored in S3, their histories holding a claim (EXPLORA_TEMPORAL_OFFLOAD_BYTES). */
    offloadBytes: number;
  };
  taskQueues: TaskQueues;
  s3: {
    /** undefined = the SDK's own AWS endpoint resolution */
    endpoint: string | undefined;
    region: string;
    bucket: string;
    credentials: S3Credentials;
    /** Path-style URLs (endpoint/bucket/key) instead of virtual-hosted ones (bucket.endpoint/key). */
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

/**
 * The configuration from the environment and, when there is one, the text of the Temporal
 * connection file (infra/config.ts reads it: TEMPORAL_CONFIG_FILE or Temporal's default path).
 */
export function parseConfig(
  env: Record<string, string | undefined>,
  files: { temporal?: { path: string; text: string } } = {},
): ExploraConfig {
  // An empty variable means "not set", as in most shells' habits of `FOO= cmd`.
  const present = Object.fromEntries(Object.keys(EnvSchema.shape).flatMap((k) => (env[k] ? [[k, env[k]]] : [])));
  const parsed = EnvSchema.safeParse(present);
  let connection: TemporalConnectionSettings | undefined;
  let temporalProblem: string | undefined;
  try {
    connection = resolveTemporalConnection(env, files.temporal);
  } catch (err) {
    if (!(err instanceof TemporalSettingsError)) throw err;
    temporalProblem = err.message.replace(/^invalid environment configuration:\n/, '').replace(/^(?! {2})/, '  ');
  }
  if (!parsed.success || !connection) {
    const lines = parsed.success
      ? []
      : parsed.error.issues.map((i) => `  ${i.path.join('.')}=${JSON.stringify(present[String(i.path[0])])}: ${i.message}`);
    // Every problem at once: the Temporal settings' and the others'.
    throw new ConfigError(`invalid environment configuration:\n${[...(temporalProblem ? [temporalProblem] : []), ...lines].join('\n')}`);
  }
  const e = parsed.data;
  const endpoint = e.EXPLORA_S3_ENDPOINT === 'aws' ? undefined : e.EXPLORA_S3_ENDPOINT;
  return {
    temporal: {
      address: connection.address,
      namespace: connection.namespace,
      uiUrl: e.EXPLORA_TEMPORAL_UI.replace(/\/$/, ''),
      connection,
      offloadBytes: e.EXPLORA_TEMPORAL_OFFLOAD_BYTES,
    },
    taskQueues: taskQueuesFor(e.EXPLORA_TASK_QUEUE_PREFIX),
    s3: {
      endpoint,
      region: e.EXPLORA_S3_REGION ?? e.AWS_REGION ?? 'us-east-1',
      bucket: e.EXPLORA_S3_BUCKET,
      credentials: s3Credentials(e, present),
      // Self-hosted S3 servers (SeaweedFS, MinIO) want path-style URLs; AWS prefers virtual hosts.
      forcePathStyle: e.EXPLORA_S3_FORCE_PATH_STYLE ? e.EXPLORA_S3_FORCE_PATH_STYLE === 'true' : endpoint !== undefined,
    },
  };
}

function s3Credentials(e: z.infer<typeof EnvSchema>, present: Record<string, unknown>): S3Credentials {
  const id = e.EXPLORA_S3_ACCESS_KEY_ID;
  const secret = e.EXPLORA_S3_SECRET_ACCESS_KEY;
  if (id && secret)
    return { kind: 'static', accessKeyId: id, secretAccessKey: secret, source: 'EXPLORA_S3_ACCESS_KEY_ID/EXPLORA_S3_SECRET_ACCESS_KEY' };
  if (id || secret) {
    const [set, unset] = id
      ? ['EXPLORA_S3_ACCESS_KEY_ID', 'EXPLORA_S3_SECRET_ACCESS_KEY']
      : ['EXPLORA_S3_SECRET_ACCESS_KEY', 'EXPLORA_S3_ACCESS_KEY_ID'];
    throw new ConfigError(
      `invalid environment configuration:\n  ${set} is set but ${unset} is not: set both, or neither to use the AWS credential chain (AWS_PROFILE, roles...)`,
    );
  }
  // No endpoint set: the local stack, whose identity is known.
  if (present.EXPLORA_S3_ENDPOINT === undefined) return { kind: 'static', ...LOCAL_STACK_S3_KEYS, source: 'the local stack' };
  return { kind: 'default-chain' };
}

export const LOG_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** EXPLORA_LOG_LEVEL (the Temporal SDK's logger), checked: a misspelt level is an error, not silence. */
export function logLevelFrom(env: Record<string, string | undefined>, fallback: LogLevel): LogLevel {
  const value = env.EXPLORA_LOG_LEVEL;
  if (!value) return fallback;
  const level = value.toUpperCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level))
    throw new ConfigError(
      `invalid environment configuration:\n  EXPLORA_LOG_LEVEL=${JSON.stringify(value)}: must be one of ${LOG_LEVELS.join(', ')}`,
    );
  return level as LogLevel;
}

/** Documentation of every variable, printed by `--help` of the scripts and quoted in the README. */
/** What a variable configures: a script's `--help` lists the groups it reads. */
export type EnvGroup = 'temporal' | 's3' | 'sandbox';

export const ENV_DOC: ReadonlyArray<readonly [name: string, fallback: string, what: string, group: EnvGroup]> = [
  ['TEMPORAL_ADDRESS', '127.0.0.1:7233', 'Temporal frontend host:port', 'temporal'],
  ['TEMPORAL_NAMESPACE', 'default', 'Temporal namespace', 'temporal'],
  [
    'TEMPORAL_CONFIG_FILE',
    '~/.config/temporalio/temporal.toml',
    "Temporal's TOML connection profiles (as the temporal CLI's); variables override it",
    'temporal',
  ],
  ['TEMPORAL_PROFILE', 'default', 'profile of that file to use', 'temporal'],
  ['TEMPORAL_TLS', 'off (on with any TLS setting or an API key)', 'true/false: TLS to the Temporal frontend', 'temporal'],
  ['TEMPORAL_TLS_SERVER_CA_CERT_PATH', 'system CAs', 'CA of the server certificate (or ..._DATA: the PEM itself)', 'temporal'],
  ['TEMPORAL_TLS_SERVER_NAME', 'the address host', 'name the server certificate is checked against', 'temporal'],
  ['TEMPORAL_TLS_CLIENT_CERT_PATH', '-', 'mTLS client certificate (or ..._DATA); needs the key', 'temporal'],
  ['TEMPORAL_TLS_CLIENT_KEY_PATH', '-', 'mTLS client key (or ..._DATA)', 'temporal'],
  ['TEMPORAL_API_KEY', '-', 'Temporal Cloud API key (turns TLS on)', 'temporal'],
  ['EXPLORA_TEMPORAL_UI', 'http://127.0.0.1:8233', 'base URL of the Temporal Web UI, for links', 'temporal'],
  [
    'EXPLORA_TEMPORAL_OFFLOAD_BYTES',
    String(DEFAULT_OFFLOAD_BYTES),
    'Temporal payloads larger than this are kept in S3, their histories holding a claim (0: all)',
    'temporal',
  ],
  ['EXPLORA_TASK_QUEUE_PREFIX', 'explora', 'prefix of the task queues <p>-workflows, -storage, -llm, -sandbox', 'temporal'],
  ['EXPLORA_S3_ENDPOINT', 'http://127.0.0.1:8333', "S3 endpoint URL, or 'aws' for AWS's own", 's3'],
  ['EXPLORA_S3_REGION', 'AWS_REGION, else us-east-1', 'S3 region', 's3'],
  [
    'EXPLORA_S3_FORCE_PATH_STYLE',
    'true with an endpoint, false for aws',
    'path-style (true) or virtual-hosted (false) bucket addressing',
    's3',
  ],
  ['EXPLORA_S3_BUCKET', 'explora', 'bucket for datasets, generations and results', 's3'],
  [
    'EXPLORA_S3_ACCESS_KEY_ID',
    "the local stack's, else the AWS chain",
    'S3 access key; unset with EXPLORA_S3_ENDPOINT set: AWS credential chain (AWS_PROFILE, web identity, roles)',
    's3',
  ],
  ['EXPLORA_S3_SECRET_ACCESS_KEY', "the local stack's, else the AWS chain", 'S3 secret key', 's3'],
  ['EXPLORA_LOG_LEVEL', 'INFO (ERROR in scripts)', 'Temporal SDK log level: TRACE, DEBUG, INFO, WARN or ERROR', 'temporal'],
  ['EXPLORA_PYTHON', '.tools/sandbox-python', 'interpreter the sandbox runs programs with', 'sandbox'],
];

/**
 * The `Environment:` section of a script's `--help`: the variables of the groups it reads, with
 * their defaults (every script that reads the environment prints one, so no variable is a surprise).
 */
export function environmentHelp(groups: readonly EnvGroup[], note = ''): string {
  const lines = ENV_DOC.filter(([, , , group]) => groups.includes(group)).map(
    ([name, fallback, what]) => `  ${name.padEnd(30)} ${what} (default ${fallback})`,
  );
  return `\nEnvironment${note ? ` (${note})` : ''}:\n${lines.join('\n')}`;
}
