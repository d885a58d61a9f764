/**
 * Temporal connection settings from the environment and a TOML profile file (Temporal's own
 * names and layout), and S3 credentials: what each setting gives, and errors naming the setting.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../domain/config/env.js';
import { describeTemporalConnection, resolveTemporalConnection, TemporalSettingsError } from '../../domain/config/temporalConnection.js';
import { loadConfig } from '../../infra/config.js';
import { temporalConnectOptions } from '../../infra/temporal/connection.js';

const FILE = '/etc/explora/temporal.toml';
const file = (text: string) => ({ path: FILE, text });
const error = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected an error');
};

describe('Temporal connection settings', () => {
  it('default: the local dev server, no TLS', () => {
    const s = resolveTemporalConnection({});
    expect(s).toMatchObject({ address: '127.0.0.1:7233', namespace: 'default', tls: { kind: 'off' }, metadata: {} });
    expect(describeTemporalConnection(s)).toBe('Temporal at 127.0.0.1:7233, namespace default (no TLS)');
  });

  it("Temporal's variables: mTLS with a private CA and a server name; an API key turns TLS on", () => {
    const s = resolveTemporalConnection({
      TEMPORAL_ADDRESS: 'temporal.internal:7233',
      TEMPORAL_NAMESPACE: 'research',
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: '/certs/ca.pem',
      TEMPORAL_TLS_SERVER_NAME: 'frontend.temporal',
      TEMPORAL_TLS_CLIENT_CERT_PATH: '/certs/client.pem',
      TEMPORAL_TLS_CLIENT_KEY_DATA: '-----BEGIN PRIVATE KEY-----',
      TEMPORAL_GRPC_META_X_TENANT: 'lab',
    });
    expect(s.tls).toEqual({
      kind: 'on',
      serverName: 'frontend.temporal',
      serverCa: { kind: 'path', path: '/certs/ca.pem', setting: 'TEMPORAL_TLS_SERVER_CA_CERT_PATH' },
      client: {
        cert: { kind: 'path', path: '/certs/client.pem', setting: 'TEMPORAL_TLS_CLIENT_CERT_PATH' },
        key: { kind: 'data', data: '-----BEGIN PRIVATE KEY-----', setting: 'TEMPORAL_TLS_CLIENT_KEY_DATA' },
      },
    });
    expect(s.metadata).toEqual({ 'x-tenant': 'lab' });
    const cloud = resolveTemporalConnection({ TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233', TEMPORAL_API_KEY: 'k' });
    expect(cloud.tls).toEqual({ kind: 'on' });
    expect(cloud.apiKey).toEqual({ value: 'k', setting: 'TEMPORAL_API_KEY' });
    expect(describeTemporalConnection(cloud)).not.toContain('k)');
  });

  it('a TOML profile (as the temporal CLI writes), TEMPORAL_PROFILE picks one, variables override it', () => {
    const toml = `[profile.default]\naddress = "a.example:7233"\n\n[profile.prod]\naddress = "prod.example:7233"\nnamespace = "sweeps"\n[profile.prod.tls]\nclient_cert_path = "/c.pem"\nclient_key_path = "/k.pem"\n[profile.prod.grpc_meta]\nx-team = "ml"\n`;
    expect(resolveTemporalConnection({}, file(toml)).address).toBe('a.example:7233');
    const prod = resolveTemporalConnection({ TEMPORAL_PROFILE: 'prod', TEMPORAL_NAMESPACE: 'override' }, file(toml));
    expect(prod).toMatchObject({
      address: 'prod.example:7233',
      namespace: 'override',
      metadata: { 'x-team': 'ml' },
      profile: { file: FILE, name: 'prod' },
    });
    expect(prod.sources).toEqual({ address: `${FILE}: profile.prod.address`, namespace: 'TEMPORAL_NAMESPACE' });
    expect(prod.tls).toMatchObject({ kind: 'on', client: { key: { setting: `${FILE}: profile.prod.tls.client_key_path` } } });
  });

  it('a certificate without its key (or a key without its certificate) is refused, naming the setting', () => {
    expect(error(() => resolveTemporalConnection({ TEMPORAL_TLS_CLIENT_CERT_PATH: '/c.pem' }))).toMatch(
      /^TEMPORAL_TLS_CLIENT_CERT_PATH gives a client certificate but no client key is set/,
    );
    expect(error(() => resolveTemporalConnection({}, file('[profile.default.tls]\nclient_key_path = "/k.pem"\n')))).toMatch(
      new RegExp(`^${FILE}: profile\\.default\\.tls\\.client_key_path gives a client key but no client certificate`),
    );
  });

  it('bad values name the variable or the file field', () => {
    const msg = error(() => resolveTemporalConnection({ TEMPORAL_ADDRESS: 'no-port', TEMPORAL_TLS: 'yes' }));
    expect(msg).toContain('TEMPORAL_ADDRESS="no-port": must be host:port');
    expect(msg).toContain('TEMPORAL_TLS="yes": must be true or false');
    expect(error(() => resolveTemporalConnection({}, file('[profile.default]\nadress = "x:1"\n')))).toMatch(
      /profile\.default: Unrecognized key: "adress"/,
    );
    expect(error(() => resolveTemporalConnection({}, file('[profile.default]\naddress = \n')))).toMatch(
      new RegExp(`^${FILE} \\(line 2, column \\d+\\): not valid TOML`),
    );
    expect(error(() => resolveTemporalConnection({ TEMPORAL_PROFILE: 'stage' }, file('[profile.prod]\n')))).toBe(
      `TEMPORAL_PROFILE="stage": no [profile.stage] in ${FILE} (it has prod)`,
    );
    expect(
      error(() =>
        resolveTemporalConnection({
          TEMPORAL_TLS_CLIENT_CERT_PATH: '/a',
          TEMPORAL_TLS_CLIENT_CERT_DATA: 'b',
          TEMPORAL_TLS_CLIENT_KEY_PATH: '/k',
        }),
      ),
    ).toMatch(/TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_CERT_DATA both give the client certificate/);
    expect(error(() => resolveTemporalConnection({ TEMPORAL_TLS: 'false', TEMPORAL_TLS_SERVER_CA_CERT_PATH: '/ca' }))).toMatch(
      /TEMPORAL_TLS turns TLS off, but TEMPORAL_TLS_SERVER_CA_CERT_PATH is set/,
    );
    expect(error(() => resolveTemporalConnection({ TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: 'true' }))).toMatch(
      /^TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: host verification cannot be turned off/,
    );
    expect(error(() => resolveTemporalConnection({ TEMPORAL_TLS_CERT: '/c.pem' }))).toMatch(
      /^TEMPORAL_TLS_CERT is the Temporal Web UI's name; explora reads Temporal's client settings: set TEMPORAL_TLS_CLIENT_CERT_PATH/,
    );
    expect(() =>
      resolveTemporalConnection({
        TEMPORAL_TLS_CERT: '/c.pem',
        TEMPORAL_TLS_CLIENT_CERT_PATH: '/c.pem',
        TEMPORAL_TLS_CLIENT_KEY_PATH: '/k.pem',
      }),
    ).not.toThrow();
    expect(() => resolveTemporalConnection({}, file('[profile.default.codec]\nendpoint = "http://codec"\n'))).toThrow(
      TemporalSettingsError,
    );
  });

  it('parseConfig reports the Temporal problems with the others, in one message', () => {
    const msg = error(() => parseConfig({ TEMPORAL_ADDRESS: 'localhost', EXPLORA_S3_BUCKET: 'Bad_Bucket' }));
    expect(msg).toMatch(/^invalid environment configuration:\n/);
    expect(msg).toContain('TEMPORAL_ADDRESS="localhost": must be host:port');
    expect(msg).toContain('EXPLORA_S3_BUCKET="Bad_Bucket"');
  });
});

describe('the connection file and certificate files on disk', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-tconn-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('TEMPORAL_CONFIG_FILE is read; a missing one is named', () => {
    const f = path.join(dir, 'temporal.toml');
    writeFileSync(f, '[profile.default]\nnamespace = "from-file"\n');
    expect(loadConfig({ TEMPORAL_CONFIG_FILE: f }).temporal.namespace).toBe('from-file');
    expect(error(() => loadConfig({ TEMPORAL_CONFIG_FILE: path.join(dir, 'nope.toml') }))).toMatch(
      /TEMPORAL_CONFIG_FILE=".*nope\.toml": no such file/,
    );
    // Temporal's default path, read only if it exists.
    expect(loadConfig({ HOME: dir }).temporal.namespace).toBe('default');
  });

  it('certificate files: unreadable, not PEM, or a key of another pair, each named before connecting', () => {
    const pem = (name: string) => path.join(dir, name);
    const ssl = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    for (const n of ['a', 'b'])
      ssl([
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        `/CN=${n}`,
        '-keyout',
        pem(`${n}-key.pem`),
        '-out',
        pem(`${n}.pem`),
      ]);
    writeFileSync(pem('junk.pem'), 'hello');
    const opts = (env: Record<string, string>) => temporalConnectOptions(parseConfig(env).temporal.connection);
    const ok = opts({
      TEMPORAL_TLS_CLIENT_CERT_PATH: pem('a.pem'),
      TEMPORAL_TLS_CLIENT_KEY_PATH: pem('a-key.pem'),
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: pem('b.pem'),
    });
    expect(ok.tls && ok.tls.clientCertPair?.crt.length).toBeGreaterThan(0);
    expect(ok.tls && ok.tls.serverRootCACertificate?.length).toBeGreaterThan(0);
    // An API key: TLS with the system's CAs, the key sent by the SDK as a bearer token.
    expect(opts({ TEMPORAL_API_KEY: 'cloud-key', TEMPORAL_GRPC_META_X_TEAM: 'ml' })).toEqual({
      address: '127.0.0.1:7233',
      tls: {},
      apiKey: 'cloud-key',
      metadata: { 'x-team': 'ml' },
    });
    expect(opts({})).toEqual({ address: '127.0.0.1:7233', tls: false, metadata: {} });
    expect(error(() => opts({ TEMPORAL_TLS_CLIENT_CERT_PATH: pem('a.pem'), TEMPORAL_TLS_CLIENT_KEY_PATH: pem('gone.pem') }))).toMatch(
      /^TEMPORAL_TLS_CLIENT_KEY_PATH=".*gone\.pem": cannot read the client key \(no such file\)/,
    );
    expect(error(() => opts({ TEMPORAL_TLS_SERVER_CA_CERT_PATH: pem('junk.pem') }))).toMatch(
      /^TEMPORAL_TLS_SERVER_CA_CERT_PATH=".*junk\.pem": not a PEM server CA certificate/,
    );
    expect(error(() => opts({ TEMPORAL_TLS_CLIENT_CERT_PATH: pem('a.pem'), TEMPORAL_TLS_CLIENT_KEY_PATH: pem('b-key.pem') }))).toBe(
      'TEMPORAL_TLS_CLIENT_KEY_PATH is not the key of the client certificate of TEMPORAL_TLS_CLIENT_CERT_PATH: give the key that goes with that certificate',
    );
  });
});

describe('S3 settings', () => {
  it("no endpoint: the local stack's keys; an endpoint without keys: the AWS credential chain", () => {
    expect(parseConfig({}).s3.credentials).toMatchObject({ kind: 'static', accessKeyId: 'exploraadmin' });
    expect(parseConfig({ EXPLORA_S3_ENDPOINT: 'aws' }).s3.credentials).toEqual({ kind: 'default-chain' });
    expect(parseConfig({ EXPLORA_S3_ENDPOINT: 'https://minio.lab:9000' }).s3).toMatchObject({
      credentials: { kind: 'default-chain' },
      forcePathStyle: true,
    });
    expect(
      parseConfig({ EXPLORA_S3_ENDPOINT: 'aws', EXPLORA_S3_ACCESS_KEY_ID: 'id', EXPLORA_S3_SECRET_ACCESS_KEY: 's' }).s3.credentials,
    ).toMatchObject({ kind: 'static', accessKeyId: 'id' });
  });

  it('region from EXPLORA_S3_REGION, else AWS_REGION; addressing style overridable; half a key pair refused', () => {
    expect(parseConfig({ AWS_REGION: 'eu-west-3' }).s3.region).toBe('eu-west-3');
    expect(parseConfig({ AWS_REGION: 'eu-west-3', EXPLORA_S3_REGION: 'auto' }).s3.region).toBe('auto');
    expect(parseConfig({ EXPLORA_S3_ENDPOINT: 'https://s3.lab', EXPLORA_S3_FORCE_PATH_STYLE: 'false' }).s3.forcePathStyle).toBe(false);
    expect(parseConfig({ EXPLORA_S3_ENDPOINT: 'aws', EXPLORA_S3_FORCE_PATH_STYLE: 'true' }).s3.forcePathStyle).toBe(true);
    expect(error(() => parseConfig({ EXPLORA_S3_FORCE_PATH_STYLE: 'yes' }))).toContain(
      'EXPLORA_S3_FORCE_PATH_STYLE="yes": must be true or false',
    );
    expect(error(() => parseConfig({ EXPLORA_S3_ENDPOINT: 'aws', EXPLORA_S3_ACCESS_KEY_ID: 'id' }))).toContain(
      'EXPLORA_S3_ACCESS_KEY_ID is set but EXPLORA_S3_SECRET_ACCESS_KEY is not',
    );
  });
});
