/**
 * How to reach Temporal: address, namespace, TLS (server CA, server name, client certificate and
 * key) and API key, from the environment and an optional connection file.
 *
 * Both follow Temporal's own environment configuration (the `temporal` CLI and the SDKs' envconfig),
 * so one file and one set of variables serve the CLI and explora alike:
 * - variables TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS,
 *   TEMPORAL_TLS_{CLIENT_CERT,CLIENT_KEY,SERVER_CA_CERT}_{PATH,DATA}, TEMPORAL_TLS_SERVER_NAME,
 *   TEMPORAL_GRPC_META_<HEADER>, TEMPORAL_PROFILE;
 * - the TOML file (TEMPORAL_CONFIG_FILE, else ~/.config/temporalio/temporal.toml) of
 *   `[profile.<name>]` tables; a variable overrides the file's value.
 * Unlike the SDK's loader, every value is checked here and every error names the setting it comes
 * from (a variable, or `file: profile.<name>.<field>`): a certificate without its key is an error,
 * not a connection that silently drops the certificate.
 *
 * Pure: the file's text is read by infra/temporal/connection.ts; certificate files are named here
 * (by path) and read there too.
 */
import { parse as parseToml, TomlError } from 'smol-toml';
import { z } from 'zod';

/** Certificate material: a file to read, or the PEM text itself; `setting` names where it was given. */
export type PemSource = { kind: 'path'; path: string; setting: string } | { kind: 'data'; data: string; setting: string };

export type TemporalTls =
  | { kind: 'off' }
  | {
      kind: 'on';
      /** Overrides the name the server's certificate is checked against (SNI too). */
      serverName?: string;
      /** CA that signed the server's certificate; the system's roots when absent. */
      serverCa?: PemSource;
      /** mTLS: the client's certificate and key. */
      client?: { cert: PemSource; key: PemSource };
    };

export interface TemporalConnectionSettings {
  address: string;
  namespace: string;
  tls: TemporalTls;
  /** Temporal Cloud API key (sent as a bearer token; implies TLS). */
  apiKey?: { value: string; setting: string };
  /** Extra gRPC headers (TEMPORAL_GRPC_META_*, profile.<name>.grpc_meta). */
  metadata: Record<string, string>;
  /** Where each of address and namespace came from, for error messages. */
  sources: { address: string; namespace: string };
  /** The connection file and profile in use, if any. */
  profile?: { file: string; name: string };
}

export class TemporalSettingsError extends Error {}

export const DEFAULT_TEMPORAL_ADDRESS = '127.0.0.1:7233';
export const DEFAULT_TEMPORAL_NAMESPACE = 'default';
const DEFAULT_PROFILE = 'default';

const hostPort = z.string().regex(/^[^\s:/]+(:\d+)$|^\[[0-9a-fA-F:]+\]:\d+$/, 'must be host:port');
const nonEmpty = z.string().min(1, 'must not be empty');

const TlsTable = z
  .object({
    disabled: z.boolean().optional(),
    client_cert_path: nonEmpty.optional(),
    client_cert_data: nonEmpty.optional(),
    client_key_path: nonEmpty.optional(),
    client_key_data: nonEmpty.optional(),
    server_ca_cert_path: nonEmpty.optional(),
    server_ca_cert_data: nonEmpty.optional(),
    server_name: nonEmpty.optional(),
    disable_host_verification: z.boolean().optional(),
  })
  .strict();

const ProfileTable = z
  .object({
    address: hostPort.optional(),
    namespace: nonEmpty.optional(),
    api_key: nonEmpty.optional(),
    tls: TlsTable.optional(),
    // Accepted so a CLI profile file loads, refused below if set: explora has no payload codec.
    codec: z.object({ endpoint: z.string().optional(), auth: z.string().optional() }).strict().optional(),
    grpc_meta: z.record(z.string(), z.string()).optional(),
  })
  .strict();

const ConfigFile = z.object({ profile: z.record(z.string(), ProfileTable).default({}) }).strict();
type ProfileTable = z.infer<typeof ProfileTable>;

const bool = z.enum(['true', 'false', '1', '0'], { message: 'must be true or false' }).transform((v) => v === 'true' || v === '1');

const EnvSchema = z.object({
  TEMPORAL_ADDRESS: hostPort.optional(),
  TEMPORAL_NAMESPACE: nonEmpty.optional(),
  TEMPORAL_API_KEY: nonEmpty.optional(),
  TEMPORAL_TLS: bool.optional(),
  TEMPORAL_TLS_CLIENT_CERT_PATH: nonEmpty.optional(),
  TEMPORAL_TLS_CLIENT_CERT_DATA: nonEmpty.optional(),
  TEMPORAL_TLS_CLIENT_KEY_PATH: nonEmpty.optional(),
  TEMPORAL_TLS_CLIENT_KEY_DATA: nonEmpty.optional(),
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: nonEmpty.optional(),
  TEMPORAL_TLS_SERVER_CA_CERT_DATA: nonEmpty.optional(),
  TEMPORAL_TLS_SERVER_NAME: nonEmpty.optional(),
  TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: bool.optional(),
  TEMPORAL_PROFILE: nonEmpty.optional(),
});
type EnvValues = z.infer<typeof EnvSchema>;

const OTHER_TLS_NAMES: Record<string, string> = {
  TEMPORAL_TLS_CA: 'TEMPORAL_TLS_SERVER_CA_CERT',
  TEMPORAL_TLS_CERT: 'TEMPORAL_TLS_CLIENT_CERT',
  TEMPORAL_TLS_KEY: 'TEMPORAL_TLS_CLIENT_KEY',
};

/** Every variable this module reads (besides TEMPORAL_GRPC_META_*), for docs and checks. */
export const TEMPORAL_ENV_VARS = [...Object.keys(EnvSchema.shape), 'TEMPORAL_CONFIG_FILE'] as const;

function issuesText(error: z.ZodError, name: (path: PropertyKey[]) => string, value: (path: PropertyKey[]) => unknown): string {
  return error.issues
    .map((i) => {
      const v = value(i.path);
      return `  ${name(i.path)}${v === undefined ? '' : `=${JSON.stringify(v)}`}: ${i.message}`;
    })
    .join('\n');
}

/** Parses the connection file's text and picks the profile; undefined when there is no file. */
function profileFrom(
  file: { path: string; text: string } | undefined,
  requested: string | undefined,
): { table: ProfileTable; name: string } | undefined {
  if (!file) {
    if (requested)
      throw new TemporalSettingsError(
        `TEMPORAL_PROFILE=${JSON.stringify(requested)}: there is no connection file to take it from (set TEMPORAL_CONFIG_FILE)`,
      );
    return undefined;
  }
  let raw: unknown;
  try {
    raw = parseToml(file.text);
  } catch (err) {
    const where = err instanceof TomlError ? ` (line ${err.line}, column ${err.column})` : '';
    throw new TemporalSettingsError(`${file.path}${where}: not valid TOML: ${(err as Error).message.split('\n')[0]}`);
  }
  const parsed = ConfigFile.safeParse(raw);
  if (!parsed.success) {
    throw new TemporalSettingsError(
      `invalid Temporal connection file ${file.path}:\n${issuesText(
        parsed.error,
        (p) => p.map(String).join('.') || '(top level)',
        () => undefined,
      )}`,
    );
  }
  const name = requested ?? DEFAULT_PROFILE;
  const table = parsed.data.profile[name];
  if (!table) {
    if (requested) {
      const known = Object.keys(parsed.data.profile);
      throw new TemporalSettingsError(
        `TEMPORAL_PROFILE=${JSON.stringify(requested)}: no [profile.${requested}] in ${file.path} (it has ${known.length ? known.join(', ') : 'none'})`,
      );
    }
    return undefined;
  }
  return { table, name };
}

/** One setting's value: the variable's if set, else the profile's; with the name of where it came from. */
function pick<T>(
  envName: keyof EnvValues,
  envValue: T | undefined,
  fileField: string,
  fileValue: T | undefined,
  where: string | undefined,
): { value: T; setting: string } | undefined {
  if (envValue !== undefined) return { value: envValue, setting: envName };
  if (fileValue !== undefined && where) return { value: fileValue, setting: `${where}.${fileField}` };
  return undefined;
}

function pemSource(
  what: string,
  path: { value: string; setting: string } | undefined,
  data: { value: string; setting: string } | undefined,
): PemSource | undefined {
  if (path && data) throw new TemporalSettingsError(`${path.setting} and ${data.setting} both give the ${what}: set one`);
  if (path) return { kind: 'path', path: path.value, setting: path.setting };
  if (data) return { kind: 'data', data: data.value, setting: data.setting };
  return undefined;
}

/**
 * Resolves the connection settings from the environment and the connection file's text (when
 * there is one). Throws TemporalSettingsError naming each bad setting.
 */
export function resolveTemporalConnection(
  env: Record<string, string | undefined>,
  file?: { path: string; text: string },
): TemporalConnectionSettings {
  // An empty variable means "not set", as elsewhere in the project's configuration.
  const present = Object.fromEntries(Object.keys(EnvSchema.shape).flatMap((k) => (env[k] ? [[k, env[k]]] : [])));
  const parsedEnv = EnvSchema.safeParse(present);
  if (!parsedEnv.success) {
    throw new TemporalSettingsError(
      `invalid environment configuration:\n${issuesText(
        parsedEnv.error,
        (p) => String(p[0]),
        (p) => (String(p[0]).includes('DATA') || String(p[0]).includes('API_KEY') ? undefined : present[String(p[0])]),
      )}`,
    );
  }
  const e = parsedEnv.data;
  // The Temporal Web UI server's names for the same files: set alone, they would be silently
  // ignored and the connection made without TLS.
  for (const [other, ours] of Object.entries(OTHER_TLS_NAMES)) {
    if (env[other] && !env[`${ours}_PATH`] && !env[`${ours}_DATA`]) {
      throw new TemporalSettingsError(
        `${other} is the Temporal Web UI's name; explora reads Temporal's client settings: set ${ours}_PATH (or ${ours}_DATA)`,
      );
    }
  }
  const profile = profileFrom(file, e.TEMPORAL_PROFILE);
  const p: ProfileTable = profile?.table ?? {};
  const where = profile && file ? `${file.path}: profile.${profile.name}` : undefined;
  const t = p.tls ?? {};
  const tlsWhere = where && `${where}.tls`;

  if (p.codec && (p.codec.endpoint || p.codec.auth)) {
    throw new TemporalSettingsError(
      `${where}.codec: explora has no payload codec (its payloads are keys and small records; bulk data is in object storage): remove the codec table`,
    );
  }
  const noHostCheck = pick(
    'TEMPORAL_TLS_DISABLE_HOST_VERIFICATION',
    e.TEMPORAL_TLS_DISABLE_HOST_VERIFICATION,
    'disable_host_verification',
    t.disable_host_verification,
    tlsWhere,
  );
  if (noHostCheck?.value) {
    throw new TemporalSettingsError(
      `${noHostCheck.setting}: host verification cannot be turned off with the TypeScript SDK; set the name the server's certificate holds with TEMPORAL_TLS_SERVER_NAME (or tls.server_name) instead`,
    );
  }

  const address = pick('TEMPORAL_ADDRESS', e.TEMPORAL_ADDRESS, 'address', p.address, where) ?? {
    value: DEFAULT_TEMPORAL_ADDRESS,
    setting: 'the default address',
  };
  const namespace = pick('TEMPORAL_NAMESPACE', e.TEMPORAL_NAMESPACE, 'namespace', p.namespace, where) ?? {
    value: DEFAULT_TEMPORAL_NAMESPACE,
    setting: 'the default namespace',
  };
  const apiKey = pick('TEMPORAL_API_KEY', e.TEMPORAL_API_KEY, 'api_key', p.api_key, where);

  const cert = pemSource(
    'client certificate',
    pick('TEMPORAL_TLS_CLIENT_CERT_PATH', e.TEMPORAL_TLS_CLIENT_CERT_PATH, 'client_cert_path', t.client_cert_path, tlsWhere),
    pick('TEMPORAL_TLS_CLIENT_CERT_DATA', e.TEMPORAL_TLS_CLIENT_CERT_DATA, 'client_cert_data', t.client_cert_data, tlsWhere),
  );
  const key = pemSource(
    'client key',
    pick('TEMPORAL_TLS_CLIENT_KEY_PATH', e.TEMPORAL_TLS_CLIENT_KEY_PATH, 'client_key_path', t.client_key_path, tlsWhere),
    pick('TEMPORAL_TLS_CLIENT_KEY_DATA', e.TEMPORAL_TLS_CLIENT_KEY_DATA, 'client_key_data', t.client_key_data, tlsWhere),
  );
  const serverCa = pemSource(
    'server CA certificate',
    pick('TEMPORAL_TLS_SERVER_CA_CERT_PATH', e.TEMPORAL_TLS_SERVER_CA_CERT_PATH, 'server_ca_cert_path', t.server_ca_cert_path, tlsWhere),
    pick('TEMPORAL_TLS_SERVER_CA_CERT_DATA', e.TEMPORAL_TLS_SERVER_CA_CERT_DATA, 'server_ca_cert_data', t.server_ca_cert_data, tlsWhere),
  );
  const serverName = pick('TEMPORAL_TLS_SERVER_NAME', e.TEMPORAL_TLS_SERVER_NAME, 'server_name', t.server_name, tlsWhere);
  if (cert && !key)
    throw new TemporalSettingsError(
      `${cert.setting} gives a client certificate but no client key is set: set TEMPORAL_TLS_CLIENT_KEY_PATH (or TEMPORAL_TLS_CLIENT_KEY_DATA, or tls.client_key_path in the profile)`,
    );
  if (key && !cert)
    throw new TemporalSettingsError(
      `${key.setting} gives a client key but no client certificate is set: set TEMPORAL_TLS_CLIENT_CERT_PATH (or TEMPORAL_TLS_CLIENT_CERT_DATA, or tls.client_cert_path in the profile)`,
    );

  // TLS is on when asked for, when any TLS material is given, or with an API key (Temporal's rule).
  const disabled = pick('TEMPORAL_TLS', e.TEMPORAL_TLS === undefined ? undefined : !e.TEMPORAL_TLS, 'disabled', t.disabled, tlsWhere);
  const material = cert ?? serverCa ?? (serverName && { setting: serverName.setting });
  let tls: TemporalTls;
  if (disabled?.value) {
    if (material) throw new TemporalSettingsError(`${disabled.setting} turns TLS off, but ${material.setting} is set: remove one`);
    tls = { kind: 'off' };
  } else if (material || apiKey || disabled?.value === false || p.tls !== undefined) {
    tls = {
      kind: 'on',
      ...(serverName ? { serverName: serverName.value } : {}),
      ...(serverCa ? { serverCa } : {}),
      ...(cert && key ? { client: { cert, key } } : {}),
    };
  } else {
    tls = { kind: 'off' };
  }

  // gRPC headers: the profile's, then TEMPORAL_GRPC_META_X_Y as header x-y (empty removes it).
  const metadata: Record<string, string> = { ...(p.grpc_meta ?? {}) };
  for (const [k, v] of Object.entries(env)) {
    if (!k.startsWith('TEMPORAL_GRPC_META_')) continue;
    const header = k.slice('TEMPORAL_GRPC_META_'.length).toLowerCase().replaceAll('_', '-');
    if (!header) continue;
    if (v) metadata[header] = v;
    else delete metadata[header];
  }

  return {
    address: address.value,
    namespace: namespace.value,
    tls,
    ...(apiKey ? { apiKey } : {}),
    metadata,
    sources: { address: address.setting, namespace: namespace.setting },
    ...(profile && file ? { profile: { file: file.path, name: profile.name } } : {}),
  };
}

/** One line saying how explora connects, for logs and error messages (no secrets). */
export function describeTemporalConnection(s: TemporalConnectionSettings): string {
  const tls =
    s.tls.kind === 'off'
      ? 'no TLS'
      : [
          'TLS',
          s.tls.serverCa ? `server CA from ${s.tls.serverCa.setting}` : 'system CAs',
          s.tls.serverName ? `server name ${s.tls.serverName}` : undefined,
          s.tls.client ? `client certificate from ${s.tls.client.cert.setting}` : undefined,
        ]
          .filter(Boolean)
          .join(', ');
  return `Temporal at ${s.address}, namespace ${s.namespace} (${tls}${s.apiKey ? `, API key from ${s.apiKey.setting}` : ''}${s.profile ? `, profile ${s.profile.name} of ${s.profile.file}` : ''})`;
}
