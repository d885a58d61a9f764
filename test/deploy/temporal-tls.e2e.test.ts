/**
 * explora on a Temporal frontend behind TLS that requires client certificates (as a self-hosted
 * cluster behind mTLS): the local dev server has no TLS, so a TLS-terminating proxy (a CA, server
 * and client certificates made here, HTTP/2 by ALPN) stands in front of it. A worker and the CLI,
 * configured by a Temporal connection file (TOML profile, as the temporal CLI's), run a sweep
 * through it; a wrong certificate, a missing key and a wrong namespace each fail naming the
 * problem, and the finished sweep is untouched by them. And as on Temporal Cloud: an API key,
 * checked by a gRPC proxy in front of the dev server.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepResultsKey } from '../../domain/sweep/keys.js';
import { getText } from '../../infra/s3.js';
import { loadConfig } from '../../infra/config.js';
import { connectTemporalWorker } from '../../infra/temporal/connection.js';
import { testConfig, TEST_ENV, TEST_NAMESPACE, uniqueSuffix } from '../support/config.js';
import { waitUntil } from '../support/poll.js';
import { killHard, runTs, spawnTs, type Spawned } from '../support/processes.js';
import { testBucket } from '../support/s3.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { makeTestPki, startApiKeyProxy, startTlsProxy, type TestPki, type TlsProxy } from '../support/tls.js';
import { HUMANEVAL, oneSampleDirectYaml, scriptedModelYaml } from '../sweep/support.js';

const { config, env: baseEnv } = testConfig();
const bucket = testBucket(config);
const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-tls-'));
const rows = gunzipSync(readFileSync(HUMANEVAL))
  .toString('utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as { prompt: string; canonical_solution: string });
const canonical = new Map(rows.map((r) => [r.prompt, r.canonical_solution]));
const sweepId = `tls-${uniqueSuffix()}`;
const sweepFile = path.join(dir, 'sweep.yaml');
// A sweep not yet started: a finished one is found in S3 without Temporal, so the refusals start this one.
const unstartedFile = path.join(dir, 'unstarted.yaml');
const connectionFile = path.join(dir, 'temporal.toml');
let server: ScriptedLlmServer;
let pki: TestPki;
let proxy: TlsProxy;
/** Everything from the connection file: the variables the test environment sets are emptied (= unset). */
let secureEnv: Record<string, string>;

beforeAll(async () => {
  server = await startScriptedLlmServer((req) => ({ content: canonical.get(String(req.body.prompt)) ?? '    pass\n' }), {
    applyStop: false,
  });
  pki = makeTestPki(path.join(dir, 'pki'));
  const [host, port] = config.temporal.address.split(':');
  proxy = await startTlsProxy(pki, { host: host!, port: Number(port) });
  const tlsTable = (extra: string) =>
    `[profile.%s.tls]\nserver_ca_cert_path = "${pki.ca.cert}"\nserver_name = "${pki.serverName}"\nclient_cert_path = "${pki.client.cert}"\n${extra}`;
  writeFileSync(
    connectionFile,
    [
      `[profile.secure]\naddress = "127.0.0.1:${proxy.port}"\nnamespace = "${TEST_NAMESPACE}"\n`,
      tlsTable(`client_key_path = "${pki.client.key}"\n`).replace('%s', 'secure'),
      `[profile.nokey]\naddress = "127.0.0.1:${proxy.port}"\nnamespace = "${TEST_NAMESPACE}"\n`,
      tlsTable('').replace('%s', 'nokey'),
    ].join('\n'),
  );
  secureEnv = {
    ...baseEnv,
    TEMPORAL_CONFIG_FILE: connectionFile,
    TEMPORAL_PROFILE: 'secure',
    TEMPORAL_ADDRESS: '',
    TEMPORAL_NAMESPACE: '',
  };
  const sweepYaml = (id: string) =>
    `id: ${id}\ndatasets:\n  - name: he\n    family: humaneval\n    path: ${HUMANEVAL}\nmodels:\n${scriptedModelYaml('m', server.url, 'canonical', 'completions')}${oneSampleDirectYaml(3)}`;
  writeFileSync(sweepFile, sweepYaml(sweepId));
  writeFileSync(unstartedFile, sweepYaml(`${sweepId}-unstarted`));
});
afterAll(async () => {
  await proxy?.close();
  await server?.close();
  bucket.s3.destroy();
  rmSync(dir, { recursive: true, force: true });
});

async function stop(worker: Spawned): Promise<void> {
  worker.child.kill('SIGINT');
  await worker.exited;
}

// The two suites at once (they only wait, each on a proxy of its own); the TLS one's cases in order.
describe.concurrent('Temporal behind TLS with client certificates required', () => {
  let results: string;

  it.sequential('a sweep completes through the TLS proxy: workers split by queue and the CLI, all from the connection file', async () => {
    // As on a cluster: one kind of worker per machine (here, per process).
    const workers = [
      spawnTs('workers/main.ts', ['--queues', 'workflows,storage'], secureEnv),
      spawnTs('workers/main.ts', ['--queues', 'sandbox,llm', '--sweep-config', sweepFile], secureEnv),
    ];
    const outputs = () => workers.map((w) => w.output()).join('\n');
    // The CLI starts with them: it waits for workers, as on a cluster where they come up in any order.
    const cli = spawnTs('scripts/start-sweep.ts', ['--config', sweepFile, '--worker', 'external', '--no-progress'], secureEnv);
    try {
      for (const worker of workers) {
        await waitUntil(() => /worker: serving/.test(worker.output()) || worker.child.exitCode !== null, {
          timeoutMs: 60_000,
          what: () => `the worker to start:\n${worker.output()}`,
        });
        expect(worker.output()).toMatch(
          new RegExp(
            `on Temporal at 127\\.0\\.0\\.1:${proxy.port}, namespace ${TEST_NAMESPACE} \\(TLS, server CA from ${connectionFile.replaceAll('.', '\\.')}: profile\\.secure\\.tls\\.server_ca_cert_path`,
          ),
        );
      }
      const { code } = await cli.exited;
      expect(code, `${cli.output()}\nworkers:\n${outputs()}`).toBe(0);
    } finally {
      if (cli.child.exitCode === null) await killHard(cli);
      await Promise.all(workers.map(stop));
    }
    results = (await getText(bucket, sweepResultsKey(sweepId)))!;
    const parsed = JSON.parse(results);
    expect(parsed.cells).toHaveLength(1);
    expect(parsed.cells[0].tasks).toBe(3);
    expect(parsed.cells[0].passAtK['pass@1']).toBe(1);
    // All went through the proxy (the CLI and each worker hold a connection of their own).
    expect(proxy.accepted()).toBeGreaterThanOrEqual(3);
  });

  it.sequential(
    'a wrong certificate, a missing key and a wrong namespace each fail naming the problem; the sweep is untouched',
    async () => {
      const refusedBefore = proxy.refused();
      const startSweep = (env: Record<string, string>) =>
        runTs('scripts/start-sweep.ts', ['--config', unstartedFile, '--worker', 'external', '--no-progress'], { ...secureEnv, ...env });

      // Each refused process, the worker given the wrong namespace and the status read back, at once.
      const [rogue, noKeyProfile, keyGone, wrongNamespace, lostWorker, status] = await Promise.all([
        // A client certificate of another CA: the server refuses it.
        startSweep({ TEMPORAL_TLS_CLIENT_CERT_PATH: pki.rogueClient.cert, TEMPORAL_TLS_CLIENT_KEY_PATH: pki.rogueClient.key }),
        // A profile with a certificate and no key.
        startSweep({ TEMPORAL_PROFILE: 'nokey' }),
        // A key file that is not there.
        startSweep({ TEMPORAL_TLS_CLIENT_KEY_PATH: path.join(dir, 'pki', 'no-such-key.pem') }),
        startSweep({ TEMPORAL_NAMESPACE: `explora-missing-${uniqueSuffix()}` }),
        // A worker given the wrong namespace stops at once, naming it, instead of polling nothing.
        runTs('workers/main.ts', ['--queues', 'workflows'], { ...secureEnv, TEMPORAL_NAMESPACE: 'explora-missing-worker' }),
        // The finished sweep reads back through the proxy.
        runTs('scripts/sweep-status.ts', [sweepId], secureEnv),
      ]);
      expect(rogue.code).not.toBe(0);
      expect(rogue.output).toMatch(/refused the client certificate of TEMPORAL_TLS_CLIENT_CERT_PATH/);
      expect(proxy.refused()).toBeGreaterThan(refusedBefore);

      expect(noKeyProfile.code).not.toBe(0);
      expect(noKeyProfile.output).toContain(
        `${connectionFile}: profile.nokey.tls.client_cert_path gives a client certificate but no client key is set`,
      );

      expect(keyGone.code).not.toBe(0);
      expect(keyGone.output).toMatch(/TEMPORAL_TLS_CLIENT_KEY_PATH=".*no-such-key\.pem": cannot read the client key \(no such file\)/);

      expect(wrongNamespace.code).not.toBe(0);
      expect(wrongNamespace.output).toMatch(
        /namespace "explora-missing-[^"]+" \(from TEMPORAL_NAMESPACE\) does not exist on Temporal at 127\.0\.0\.1:\d+/,
      );

      expect(lostWorker.code).not.toBe(0);
      expect(lostWorker.output).toMatch(/namespace "explora-missing-worker" \(from TEMPORAL_NAMESPACE\) does not exist/);

      // The other ways a TLS connection goes wrong, each explained by the setting to fix (a worker's
      // connection, in this process: the same module serves every entry point).
      const workerConnect = (env: Record<string, string>) =>
        connectTemporalWorker(loadConfig({ ...secureEnv, ...env })).then(
          (c) => c.close(),
          (err: Error) => err.message,
        );
      expect(await workerConnect({ TEMPORAL_TLS_SERVER_CA_CERT_PATH: pki.rogueCa.cert })).toMatch(
        /the server's certificate is not signed by the CA of TEMPORAL_TLS_SERVER_CA_CERT_PATH/,
      );
      expect(await workerConnect({ TEMPORAL_TLS_SERVER_NAME: 'elsewhere.example' })).toMatch(
        /the server's certificate is not for the name checked .*: set TEMPORAL_TLS_SERVER_NAME/,
      );
      expect(
        await workerConnect({
          TEMPORAL_PROFILE: '',
          TEMPORAL_CONFIG_FILE: TEST_ENV.TEMPORAL_CONFIG_FILE,
          TEMPORAL_ADDRESS: `127.0.0.1:${proxy.port}`,
          TEMPORAL_NAMESPACE: TEST_NAMESPACE,
        }),
      ).toMatch(/the server speaks TLS: set TEMPORAL_TLS=true/);
      expect(
        await workerConnect({
          TEMPORAL_PROFILE: '',
          TEMPORAL_CONFIG_FILE: TEST_ENV.TEMPORAL_CONFIG_FILE,
          TEMPORAL_ADDRESS: `127.0.0.1:${proxy.port}`,
          TEMPORAL_NAMESPACE: TEST_NAMESPACE,
          TEMPORAL_TLS_SERVER_CA_CERT_PATH: pki.ca.cert,
          TEMPORAL_TLS_SERVER_NAME: pki.serverName,
        }),
      ).toMatch(/the server requires a client certificate: set TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH/);

      // Nothing lost: the results are as they were, and the sweep reads back through the proxy.
      expect(await getText(bucket, sweepResultsKey(sweepId))).toBe(results);
      expect(status.code, status.output).toBe(0);
      expect(status.output).toMatch(/pass@1/);
    },
  );
});

describe.concurrent('Temporal with an API key (as Temporal Cloud)', () => {
  it('a sweep completes with the key; a wrong key stops a worker naming TEMPORAL_API_KEY', async () => {
    const apiKey = `key-${uniqueSuffix()}`;
    const [host, port] = config.temporal.address.split(':');
    const gate = await startApiKeyProxy(pki, { host: host!, port: Number(port) }, apiKey);
    try {
      const id = `apikey-${uniqueSuffix()}`;
      const file = path.join(dir, 'apikey-sweep.yaml');
      writeFileSync(file, readFileSync(sweepFile, 'utf8').replace(`id: ${sweepId}`, `id: ${id}`));
      const cloudEnv = {
        ...baseEnv,
        TEMPORAL_ADDRESS: `127.0.0.1:${gate.port}`,
        TEMPORAL_API_KEY: apiKey,
        // A private CA here; Temporal Cloud's certificates are checked against the system's CAs.
        TEMPORAL_TLS_SERVER_CA_CERT_PATH: pki.ca.cert,
        TEMPORAL_TLS_SERVER_NAME: pki.serverName,
      };
      const [wrong, run] = await Promise.all([
        runTs('workers/main.ts', ['--queues', 'workflows'], { ...cloudEnv, TEMPORAL_API_KEY: 'not-the-key' }),
        // In-process workers: the CLI's own and its workers' connections all carry the key.
        runTs('scripts/start-sweep.ts', ['--config', file, '--no-progress'], cloudEnv),
      ]);
      expect(wrong.code).not.toBe(0);
      expect(wrong.output).toMatch(/the server refused the API key of TEMPORAL_API_KEY/);
      expect(wrong.output).not.toContain('not-the-key');
      expect(gate.refused()).toBeGreaterThan(0);

      expect(run.code, run.output).toBe(0);
      const results = JSON.parse((await getText(bucket, sweepResultsKey(id)))!);
      expect(results.cells[0].passAtK['pass@1']).toBe(1);
      expect(gate.allowed()).toBeGreaterThan(10);
    } finally {
      await gate.close();
    }
  });
});
