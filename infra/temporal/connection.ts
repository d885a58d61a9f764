/**
 * The one place that opens connections to Temporal: the client's (`Connection`, for the CLIs) and
 * the worker's (`NativeConnection`), both from the same options, built from the settings of
 * domain/config/temporalConnection.ts (address, namespace, TLS, mTLS, API key, gRPC headers).
 *
 * Before returning, each checks that the namespace exists, so a wrong namespace, a wrong
 * certificate or a missing key is reported at once, naming the setting to fix, and not as a
 * worker that polls nothing or a CLI that hangs.
 */
import { readFileSync } from 'node:fs';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import tls from 'node:tls';
import { Client, Connection, type TLSConfig } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { ExploraConfig } from '../../domain/config/env.js';
import { payloadStorageFor } from './payloadStorage.js';
import { s3ClientFor } from '../s3.js';
import { describeTemporalConnection, type PemSource, type TemporalConnectionSettings } from '../../domain/config/temporalConnection.js';

export class TemporalConnectionError extends Error {}

/** The options both `Connection.connect` and `NativeConnection.connect` take. */
export interface TemporalConnectOptions {
  address: string;
  tls: TLSConfig | false;
  apiKey?: string;
  metadata: Record<string, string>;
}

function readPem(source: PemSource, what: string, marker: RegExp): Buffer {
  let pem: Buffer;
  if (source.kind === 'data') pem = Buffer.from(source.data, 'utf8');
  else {
    try {
      pem = readFileSync(source.path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new TemporalConnectionError(
        `${source.setting}=${JSON.stringify(source.path)}: cannot read the ${what} (${code === 'ENOENT' ? 'no such file' : (err as Error).message})`,
      );
    }
  }
  if (!marker.test(pem.toString('utf8'))) {
    throw new TemporalConnectionError(
      `${source.setting}${source.kind === 'path' ? `=${JSON.stringify(source.path)}` : ''}: not a PEM ${what} (no ${marker.source.replaceAll('\\', '')} block)`,
    );
  }
  return pem;
}

/** Reads the certificate material the settings name and checks it before any connection is tried. */
export function temporalConnectOptions(s: TemporalConnectionSettings): TemporalConnectOptions {
  let tls: TLSConfig | false = false;
  if (s.tls.kind === 'on') {
    tls = {};
    if (s.tls.serverName) tls.serverNameOverride = s.tls.serverName;
    if (s.tls.serverCa) tls.serverRootCACertificate = readPem(s.tls.serverCa, 'server CA certificate', /-----BEGIN CERTIFICATE-----/);
    if (s.tls.client) {
      const { cert, key } = s.tls.client;
      const crt = readPem(cert, 'client certificate', /-----BEGIN CERTIFICATE-----/);
      const keyPem = readPem(key, 'client key', /-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----/);
      // A certificate and a key of different pairs fail deep in the TLS handshake with a message
      // naming neither: check them here.
      let matches: boolean;
      try {
        matches = new X509Certificate(crt).checkPrivateKey(createPrivateKey(keyPem));
      } catch (err) {
        throw new TemporalConnectionError(
          `${cert.setting} / ${key.setting}: cannot load the client certificate and key (${(err as Error).message})`,
        );
      }
      if (!matches)
        throw new TemporalConnectionError(
          `${key.setting} is not the key of the client certificate of ${cert.setting}: give the key that goes with that certificate`,
        );
      tls.clientCertPair = { crt, key: keyPem };
    }
  }
  return { address: s.address, tls, ...(s.apiKey ? { apiKey: s.apiKey.value } : {}), metadata: s.metadata };
}

/**
 * The SDKs' errors hide why a TLS connection failed ("Failed to connect before the deadline",
 * "transport error"): a handshake of our own with the same material says which side refused what,
 * and so which setting to fix. Returns undefined when it finds nothing wrong with TLS.
 */
async function diagnoseTls(s: TemporalConnectionSettings, options: TemporalConnectOptions): Promise<string | undefined> {
  const cut = s.address.lastIndexOf(':');
  const host = s.address.slice(0, cut).replace(/^\[|\]$/g, '');
  const port = Number(s.address.slice(cut + 1));
  const t = options.tls;
  type Outcome = { ok: true } | { ok: false; code: string; message: string };
  const outcome = await new Promise<Outcome>((resolve) => {
    const socket = tls.connect({
      host,
      port,
      ...(isIpAddress(host) && !(t && t.serverNameOverride) ? {} : { servername: (t && t.serverNameOverride) || host }),
      ALPNProtocols: ['h2'],
      // Without TLS settings this only asks whether the server speaks TLS at all.
      rejectUnauthorized: t !== false,
      ...(t && t.serverRootCACertificate ? { ca: Buffer.from(t.serverRootCACertificate) } : {}),
      ...(t && t.clientCertPair ? { cert: Buffer.from(t.clientCertPair.crt), key: Buffer.from(t.clientCertPair.key) } : {}),
      ...(t && t.serverNameOverride
        ? { checkServerIdentity: (_h: string, cert: tls.PeerCertificate) => tls.checkServerIdentity(t.serverNameOverride!, cert) }
        : {}),
    });
    const finish = (r: Outcome) => {
      socket.destroy();
      resolve(r);
    };
    socket.setTimeout(5000, () => finish({ ok: false, code: 'ETIMEDOUT', message: 'no answer in 5 s' }));
    socket.on('error', (err: NodeJS.ErrnoException) => finish({ ok: false, code: err.code ?? '', message: err.message }));
    // With TLS 1.3 the server checks the client's certificate after the client's side of the
    // handshake is done: its refusal arrives a moment later, as an alert or as a bare close.
    socket.on('secureConnect', () => {
      if (t === false) finish({ ok: true });
      else setTimeout(() => finish({ ok: true }), 500);
    });
    socket.on('end', () =>
      finish({ ok: false, code: 'CLOSED_AFTER_HANDSHAKE', message: 'the server closed the connection right after the TLS handshake' }),
    );
  });
  if (!outcome.ok && ['ECONNREFUSED', 'ENOTFOUND', 'ETIMEDOUT', 'EHOSTUNREACH'].includes(outcome.code)) {
    return `nothing answers at ${s.address} (${outcome.code}): check ${s.sources.address}`;
  }
  if (t === false)
    return outcome.ok ? 'the server speaks TLS: set TEMPORAL_TLS=true (and TEMPORAL_TLS_SERVER_CA_CERT_PATH for a private CA)' : undefined;
  if (outcome.ok) return undefined;
  const { code, message } = outcome;
  const both = `${code} ${message}`;
  if (/wrong version number|packet length too long|unknown protocol/i.test(both))
    return `the server at ${s.address} does not speak TLS: unset the TLS settings (or TEMPORAL_TLS=false)`;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return `the server's certificate is not for the name checked (${message}): set TEMPORAL_TLS_SERVER_NAME to a name it holds`;
  if (/UNABLE_TO_VERIFY|SELF_SIGNED|UNABLE_TO_GET_ISSUER|CERT_UNTRUSTED|unable to get local issuer/i.test(both)) {
    return s.tls.kind === 'on' && s.tls.serverCa
      ? `the server's certificate is not signed by the CA of ${s.tls.serverCa.setting} (${code || message})`
      : `the server's certificate is not signed by a CA this machine trusts (${code || message}): set TEMPORAL_TLS_SERVER_CA_CERT_PATH to its CA`;
  }
  if (/CERT_HAS_EXPIRED|CERT_NOT_YET_VALID/.test(code)) return `the server's certificate is not valid now (${code})`;
  if (/certificate required/i.test(message)) {
    return "the server requires a client certificate: set TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH (or the profile's tls.client_cert_path and tls.client_key_path)";
  }
  if (code === 'CLOSED_AFTER_HANDSHAKE') {
    return s.tls.kind === 'on' && s.tls.client
      ? `the server closed the connection right after the TLS handshake: it refused the client certificate of ${s.tls.client.cert.setting} (give one signed by a CA the server trusts)`
      : 'the server closed the connection right after the TLS handshake: it may require a client certificate (TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH)';
  }
  if (
    /unknown ca|bad certificate|certificate unknown|unsupported certificate|certificate revoked|certificate expired|access denied|decrypt error/i.test(
      message,
    )
  ) {
    const from = s.tls.kind === 'on' && s.tls.client ? s.tls.client.cert.setting : 'TEMPORAL_TLS_CLIENT_CERT_PATH';
    return `the server refused the client certificate of ${from} (${message.replace(/^.*?alert/i, 'TLS alert').replace(/:.*$/, '')}): give a certificate signed by a CA the server trusts`;
  }
  return `TLS handshake failed: ${both}`.trim();
}

function isIpAddress(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':');
}

/** A connection failure explained: what was tried, and the settings that could be at fault. */
async function explainConnectFailure(
  s: TemporalConnectionSettings,
  options: TemporalConnectOptions,
  err: unknown,
): Promise<TemporalConnectionError> {
  // The client SDK wraps the server's answer ("Failed to connect to Temporal server"): say both.
  const chain: Array<{ message?: string; code?: number; cause?: unknown }> = [];
  for (let e = err as { message?: string; code?: number; cause?: unknown } | undefined; e && chain.length < 4; e = e.cause as typeof e)
    chain.push(e);
  const said = chain.map((e) => (e.message ?? String(e)).split('\n')[0]!).join(': ');
  const unauthenticated = chain.some((e) => e.code === 16 /* UNAUTHENTICATED */ || e.code === 7 /* PERMISSION_DENIED */);
  const tlsProblem = await diagnoseTls(s, options).catch(() => undefined);
  let hint = '';
  if (!tlsProblem && (unauthenticated || /unauthenticated|unauthorized|permission|api key|authorization|authentication/i.test(said))) {
    hint = s.apiKey
      ? `\n  the server refused the API key of ${s.apiKey.setting}`
      : '\n  the server wants credentials: TEMPORAL_API_KEY (Temporal Cloud) or a client certificate';
  }
  return new TemporalConnectionError(
    `cannot connect to ${describeTemporalConnection(s)}: ${tlsProblem ?? said}${hint}` +
      (tlsProblem ? `\n  (the SDK said: ${said})` : '') +
      addressNote(s),
  );
}

function addressNote(s: TemporalConnectionSettings): string {
  return `\n  (address from ${s.sources.address}; on a laptop, start the local stack with \`npm run stack:up\`)`;
}

/** How long a client connection may take before it is diagnosed while the SDK keeps trying. */
const EARLY_DIAGNOSIS_MS = 300;

/** Whether the namespace exists: a wrong one is named with where it was set. */
async function checkNamespace(
  s: TemporalConnectionSettings,
  options: TemporalConnectOptions,
  describe: () => Promise<unknown>,
): Promise<void> {
  try {
    await describe();
  } catch (err) {
    const code = (err as { code?: number }).code;
    if (code === 5 /* NOT_FOUND */ || /namespace .* (is )?not found/i.test((err as Error).message)) {
      throw new TemporalConnectionError(
        `namespace ${JSON.stringify(s.namespace)} (from ${s.sources.namespace}) does not exist on Temporal at ${s.address}: ` +
          "fix TEMPORAL_NAMESPACE (or the profile's namespace), or create it (`temporal operator namespace create --namespace " +
          `${s.namespace}\`)`,
      );
    }
    // Temporal Cloud's namespace-scoped keys may not describe: the first real call tells.
    if (code === 7 /* PERMISSION_DENIED */) return;
    throw await explainConnectFailure(s, options, err);
  }
}

/** A client connection (CLIs), with the namespace checked. */
export async function connectTemporal(
  config: ExploraConfig,
  opts: { connectTimeout?: number | string; checkNamespace?: boolean } = {},
): Promise<{ connection: Connection; client: Client; close: () => Promise<void> }> {
  const s = config.temporal.connection;
  const options = temporalConnectOptions(s);
  const connecting = Connection.connect({
    ...options,
    ...(opts.connectTimeout !== undefined ? { connectTimeout: opts.connectTimeout } : {}),
  });
  // The client SDK keeps retrying a refused TLS handshake (or a closed port) until its deadline
  // (10 s) and then says only that: a connection not up in a moment is diagnosed meanwhile, and a
  // problem found is reported at once, as the worker's connection (which fails fast) does.
  let connected = false;
  type Outcome = { connection: Connection } | { problem: string };
  const early = new Promise<void>((resolve) => setTimeout(resolve, EARLY_DIAGNOSIS_MS).unref()).then(() =>
    connected ? undefined : diagnoseTls(s, options).catch(() => undefined),
  );
  let outcome: Outcome;
  try {
    outcome = await Promise.race<Outcome>([
      connecting.then((c) => ({ connection: c })),
      early.then((problem): Outcome | Promise<Outcome> => (problem ? { problem } : connecting.then((c) => ({ connection: c })))),
    ]);
  } catch (err) {
    throw await explainConnectFailure(s, options, err);
  } finally {
    connected = true;
  }
  if ('problem' in outcome) {
    connecting.then(
      (c) => c.close(),
      () => {},
    );
    throw new TemporalConnectionError(`cannot connect to ${describeTemporalConnection(s)}: ${outcome.problem}${addressNote(s)}`);
  }
  const connection = outcome.connection;
  try {
    if (opts.checkNamespace !== false)
      await checkNamespace(s, options, () => connection.workflowService.describeNamespace({ namespace: s.namespace }));
  } catch (err) {
    await connection.close();
    throw err;
  }
  // Large payloads (a task's thousands of answer keys) are kept in S3; the client must read their claims.
  const storage = payloadStorageFor(config, () => s3ClientFor(config));
  return {
    connection,
    client: new Client({ connection, namespace: s.namespace, dataConverter: { externalStorage: storage.externalStorage } }),
    close: async () => {
      storage.close();
      await connection.close();
    },
  };
}

/** A worker connection, with the namespace checked. */
export async function connectTemporalWorker(config: ExploraConfig): Promise<NativeConnection> {
  const s = config.temporal.connection;
  const options = temporalConnectOptions(s);
  let connection: NativeConnection;
  try {
    connection = await NativeConnection.connect(options);
  } catch (err) {
    throw await explainConnectFailure(s, options, err);
  }
  try {
    await checkNamespace(s, options, () => connection.workflowService.describeNamespace({ namespace: s.namespace }));
  } catch (err) {
    await connection.close();
    throw err;
  }
  return connection;
}
