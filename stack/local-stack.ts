/**
 * The local stack: the Temporal CLI dev server (SQLite file, Web UI) and SeaweedFS (`weed mini`, S3),
 * started from the binaries that scripts/install-tools.sh put under .tools/, with their data under
 * .data/ so that it survives a stop and a start. `up` is idempotent: it finds a running stack by
 * its pid files and only health-checks it.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { modelPathFromEnv } from './model-server/location.js';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { CreateBucketCommand, DeleteObjectCommand, GetObjectCommand, HeadBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { isNotFound, s3ClientFor } from '../infra/s3.js';
import type { ExploraConfig } from '../domain/config/env.js';
import { SEARCH_ATTRIBUTES } from '../domain/config/searchAttributes.js';
import { registerSearchAttributes, waitForSearchAttributes } from '../infra/temporal/searchAttributes.js';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface StackPaths {
  toolsDir: string;
  dataDir: string;
  /** SeaweedFS's internal servers (their gRPC ports are these + 10000). */
  weedPorts: { master: number; filer: number; volume: number; admin: number };
  /** The embedded model server (scripts/model-server.ts), unless EXPLORA_STACK_MODEL=off. */
  model: { port: number; path: string } | null;
}

function portFromEnv(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 55535)
    throw new Error(`${name}=${raw}: must be a port number below 55536 (its gRPC twin is +10000)`);
  return port;
}

/** Where the stack keeps its binaries and data, and its ports beyond those in ExploraConfig. */
export function stackPaths(env: Record<string, string | undefined> = process.env): StackPaths {
  return {
    toolsDir: path.resolve(env.EXPLORA_TOOLS_DIR || path.join(PROJECT_ROOT, '.tools')),
    dataDir: path.resolve(env.EXPLORA_DATA_DIR || path.join(PROJECT_ROOT, '.data')),
    weedPorts: {
      master: portFromEnv(env, 'EXPLORA_WEED_MASTER_PORT', 9333),
      filer: portFromEnv(env, 'EXPLORA_WEED_FILER_PORT', 8888),
      volume: portFromEnv(env, 'EXPLORA_WEED_VOLUME_PORT', 9340),
      admin: portFromEnv(env, 'EXPLORA_WEED_ADMIN_PORT', 9346),
    },
    model: env.EXPLORA_STACK_MODEL === 'off' ? null : { port: portFromEnv(env, 'EXPLORA_MODEL_PORT', 8090), path: modelPathFromEnv(env) },
  };
}

/** Base URL of the embedded model's OpenAI-compatible API. */
export function modelBaseUrl(paths: StackPaths): string | null {
  return paths.model ? `http://127.0.0.1:${paths.model.port}/v1` : null;
}

export type ServiceName = 'temporal' | 'seaweedfs' | 'model';

interface ServiceSpec {
  name: ServiceName;
  binary: string;
  args: string[];
  /** Text of our own process's command line (a recycled pid belongs to another program). */
  marker: string;
  /** What must exist before it can start, and how to get it. */
  requires: { file: string; hint: string };
  /** Every port the service binds: all must be free before we start it. */
  ports: Array<{ port: number; what: string }>;
}

function hostPort(address: string): { host: string; port: number } {
  const i = address.lastIndexOf(':');
  return { host: address.slice(0, i), port: Number(address.slice(i + 1)) };
}

function localPortOf(url: string, fallback: number): number {
  const u = new URL(url);
  return u.port ? Number(u.port) : fallback;
}

/**
 * Write-ahead log, synced at checkpoints rather than at every commit: against the default (rollback
 * journal, two fsyncs per commit) it cut the server's CPU in a 9,840-sample sweep by a fifth (12.4 s
 * to 9.9 s on a VM's disk). A killed server loses nothing (the log is in the OS's cache); only
 * a power loss or kernel crash can drop the last commits, never corrupt the file, and every activity
 * re-checks S3 before redoing work anyway.
 */
const SQLITE_PRAGMAS = ['journal_mode=wal', 'synchronous=normal'];

function serviceSpecs(config: ExploraConfig, paths: StackPaths): ServiceSpec[] {
  const bin = path.join(paths.toolsDir, 'py', 'bin');
  const temporalPort = hostPort(config.temporal.address).port;
  const uiPort = localPortOf(config.temporal.uiUrl, 8233);
  const s3Port = localPortOf(config.s3.endpoint ?? 'http://127.0.0.1:8333', 8333);
  const weedDir = path.join(paths.dataDir, 'seaweedfs');
  const s3ConfigFile = path.join(paths.dataDir, 'seaweedfs-s3.json');
  const weed = paths.weedPorts;
  const setup = 'run `npm run setup` (scripts/install-tools.sh) first';
  const services: ServiceSpec[] = [
    {
      name: 'temporal',
      binary: path.join(bin, 'temporal'),
      marker: path.join(bin, 'temporal'),
      requires: { file: path.join(bin, 'temporal'), hint: setup },
      args: [
        'server',
        'start-dev',
        '--ip',
        '127.0.0.1',
        '--port',
        String(temporalPort),
        '--ui-port',
        String(uiPort),
        '--db-filename',
        path.join(paths.dataDir, 'temporal.sqlite'),
        ...SQLITE_PRAGMAS.flatMap((p) => ['--sqlite-pragma', p]),
        '--namespace',
        config.temporal.namespace,
        '--log-level',
        'warn',
        '--ui-disable-news-fetch',
        ...SEARCH_ATTRIBUTES.flatMap((a) => ['--search-attribute', `${a.name}=${a.type}`]),
      ],
      ports: [
        { port: temporalPort, what: 'Temporal frontend' },
        { port: uiPort, what: 'Temporal Web UI' },
      ],
    },
    {
      name: 'seaweedfs',
      binary: path.join(bin, 'weed'),
      marker: path.join(bin, 'weed'),
      requires: { file: path.join(bin, 'weed'), hint: setup },
      args: [
        'mini',
        `-dir=${weedDir}`,
        '-ip=127.0.0.1',
        '-ip.bind=127.0.0.1',
        '-master.telemetry=false',
        '-webdav=false',
        '-admin.ui=false',
        '-s3.port.iceberg=0',
        '-s3.port.lance=0',
        `-s3.port=${s3Port}`,
        `-s3.config=${s3ConfigFile}`,
        `-bucket=${config.s3.bucket}`,
        `-master.port=${weed.master}`,
        `-filer.port=${weed.filer}`,
        `-volume.port=${weed.volume}`,
        `-admin.port=${weed.admin}`,
        // A restarted single master replays its Raft log, whose first entry joins the master to its
        // own cluster: it then heartbeats itself for as long as it runs, 5-6% of a core on the
        // 2-core VMs (0.5-0.8% without; docs/benchmarks.md#the-local-stacks-idle-cpu). Its state is
        // the volumes' highest id, which the volume server reports again at once.
        '-master.resumeState=false',
      ],
      ports: [
        { port: s3Port, what: 'SeaweedFS S3' },
        { port: s3Port + 10000, what: 'SeaweedFS S3 gRPC' },
        ...(['master', 'filer', 'volume', 'admin'] as const).flatMap((k) => [
          { port: weed[k], what: `SeaweedFS ${k}` },
          { port: weed[k] + 10000, what: `SeaweedFS ${k} gRPC` },
        ]),
      ],
    },
  ];
  if (paths.model) {
    const script = path.join(PROJECT_ROOT, 'scripts/model-server.ts');
    services.push({
      name: 'model',
      // node on bin/run.mjs, which runs the script in its own process: the pid we keep is the server itself.
      binary: process.execPath,
      args: [path.join(PROJECT_ROOT, 'bin/run.mjs'), script, '--port', String(paths.model.port), '--model', paths.model.path, '--quiet'],
      marker: script,
      requires: {
        file: paths.model.path,
        hint: 'run `npm run setup` (it installs the weights with scripts/install-model.sh), or set EXPLORA_STACK_MODEL=off',
      },
      ports: [{ port: paths.model.port, what: 'embedded model server' }],
    });
  }
  return services;
}

function pidFile(paths: StackPaths, name: string): string {
  return path.join(paths.dataDir, 'run', `${name}.pid`);
}

function logFile(paths: StackPaths, name: string): string {
  return path.join(paths.dataDir, 'logs', `${name}.log`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pid of our own running service, or undefined (a stale pid file is removed). */
function runningPid(paths: StackPaths, spec: ServiceSpec): number | undefined {
  const file = pidFile(paths, spec.name);
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').trim());
  let ours = false;
  if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) {
    try {
      // A recycled pid would belong to another program: check it is our binary.
      ours = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(spec.marker);
    } catch {
      ours = false;
    }
  }
  if (!ours) {
    rmSync(file, { force: true });
    return undefined;
  }
  return pid;
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T>, logPath: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      return await probe();
    } catch (err) {
      last = err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  const tail = existsSync(logPath) ? readFileSync(logPath, 'utf8').split('\n').slice(-15).join('\n') : '(no log)';
  throw new Error(`${what} did not become healthy in ${timeoutMs / 1000}s: ${String(last)}\nlast lines of ${logPath}:\n${tail}`);
}

async function temporalHealthy(config: ExploraConfig): Promise<void> {
  const connection = await Connection.connect({ address: config.temporal.address, connectTimeout: 1000 });
  try {
    await connection.workflowService.describeNamespace({ namespace: config.temporal.namespace });
    // A data folder from an older version may lack attributes added since: register what is missing.
    await registerSearchAttributes(connection, config.temporal.namespace);
  } finally {
    await connection.close();
  }
}

/**
 * Creates config's namespace on a running server if it is missing (retention `retentionDays`), with
 * the sweeps' search attributes, and waits until the frontend serves both: a new namespace and new
 * attributes reach the frontend's caches a few seconds after they are stored.
 */
export async function ensureNamespace(config: ExploraConfig, retentionDays = 1, timeoutMs = 60_000): Promise<void> {
  const { namespace } = config.temporal;
  const connection = await Connection.connect({ address: config.temporal.address, connectTimeout: 5000 });
  try {
    try {
      await connection.workflowService.describeNamespace({ namespace });
    } catch (err) {
      if ((err as { code?: number }).code !== 5 /* NOT_FOUND */) throw err;
      try {
        await connection.workflowService.registerNamespace({
          namespace,
          workflowExecutionRetentionPeriod: msToTs(retentionDays * 86_400_000),
        });
      } catch (raced) {
        if ((raced as { code?: number }).code !== 6 /* ALREADY_EXISTS */) throw raced;
      }
    }
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        await registerSearchAttributes(connection, namespace);
        break;
      } catch (err) {
        // A namespace just created may not be served yet.
        if (Date.now() > deadline) throw new Error(`namespace ${namespace} not ready in ${timeoutMs / 1000}s: ${String(err)}`);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
    await waitForSearchAttributes(connection, namespace, Math.max(1000, deadline - Date.now()));
  } finally {
    await connection.close();
  }
}

/** Creates the bucket if it is missing; succeeds only once S3 answers with our credentials. */
export async function ensureBucket(config: ExploraConfig, bucket = config.s3.bucket): Promise<void> {
  const s3 = s3ClientFor(config);
  try {
    try {
      await s3.send(new HeadBucketCommand({ Bucket: bucket }));
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    }
  } finally {
    s3.destroy();
  }
}

/**
 * Writes, reads back and deletes an object. SeaweedFS answers bucket requests a moment before its
 * filer and volume serve writes (under load the first PUT then fails with "InternalError"), so
 * "ready" means an object went through the whole path.
 */
async function writeProbe(config: ExploraConfig): Promise<void> {
  const s3 = s3ClientFor(config);
  const Key = `.stack-probe/${process.pid}-${Date.now()}`;
  try {
    await s3.send(new PutObjectCommand({ Bucket: config.s3.bucket, Key, Body: 'ready' }));
    const back = await (await s3.send(new GetObjectCommand({ Bucket: config.s3.bucket, Key }))).Body!.transformToString();
    if (back !== 'ready') throw new Error(`probe object read back as ${JSON.stringify(back)}`);
    await s3.send(new DeleteObjectCommand({ Bucket: config.s3.bucket, Key }));
  } finally {
    s3.destroy();
  }
}

function writeSeaweedCredentials(config: ExploraConfig, paths: StackPaths): void {
  const keys = config.s3.credentials;
  if (keys.kind !== 'static') {
    throw new Error(
      'the local stack creates its S3 identity from EXPLORA_S3_ACCESS_KEY_ID and EXPLORA_S3_SECRET_ACCESS_KEY: set both (or unset EXPLORA_S3_ENDPOINT for the defaults)',
    );
  }
  // One identity with full rights: the local stack is single-user; a real deployment brings its own S3.
  const identities = {
    identities: [
      {
        name: 'explora',
        credentials: [{ accessKey: keys.accessKeyId, secretKey: keys.secretAccessKey }],
        actions: ['Admin', 'Read', 'Write', 'List', 'Tagging'],
      },
    ],
  };
  writeFileSync(path.join(paths.dataDir, 'seaweedfs-s3.json'), JSON.stringify(identities, null, 2), { mode: 0o600 });
}

export interface StackStatus {
  name: string;
  pid: number | undefined;
}

export function stackStatus(config: ExploraConfig, paths = stackPaths()): StackStatus[] {
  return serviceSpecs(config, paths).map((spec) => ({ name: spec.name, pid: runningPid(paths, spec) }));
}

export function assertLocalEndpoints(config: ExploraConfig): void {
  const temporalHost = hostPort(config.temporal.address).host;
  const s3Host = config.s3.endpoint ? new URL(config.s3.endpoint).hostname : 'aws';
  for (const [what, host] of [
    ['TEMPORAL_ADDRESS', temporalHost],
    ['EXPLORA_S3_ENDPOINT', s3Host],
  ] as const) {
    if (!['127.0.0.1', 'localhost'].includes(host)) {
      throw new Error(`the local stack serves 127.0.0.1 only, but ${what} points at ${host}; unset it to use the local stack`);
    }
  }
}

/** Starts whatever part of the stack is not running, then waits until all of it is healthy. */
export async function stackUp(
  config: ExploraConfig,
  log: (line: string) => void = () => {},
  paths = stackPaths(),
): Promise<{ started: string[] }> {
  assertLocalEndpoints(config);
  const specs = serviceSpecs(config, paths);
  for (const spec of specs) {
    if (!existsSync(spec.requires.file)) throw new Error(`${spec.requires.file} is missing: ${spec.requires.hint}`);
  }
  for (const dir of ['run', 'logs', 'seaweedfs']) mkdirSync(path.join(paths.dataDir, dir), { recursive: true });
  writeSeaweedCredentials(config, paths);

  const started: string[] = [];
  for (const spec of specs) {
    const pid = runningPid(paths, spec);
    if (pid !== undefined) {
      log(`${spec.name}: already running (pid ${pid})`);
      continue;
    }
    for (const { port, what } of spec.ports) {
      if (!(await portIsFree(port))) {
        throw new Error(
          `port ${port} (${what}) on 127.0.0.1 is taken by a process that is not this project's ${spec.name}; ` +
            `stop that process (e.g. \`ss -ltnp 'sport = :${port}'\` shows it) and run again`,
        );
      }
    }
    const out = openSync(logFile(paths, spec.name), 'a');
    const child = spawn(spec.binary, spec.args, { detached: true, stdio: ['ignore', out, out], cwd: paths.dataDir });
    closeSync(out);
    if (child.pid === undefined) throw new Error(`could not start ${spec.binary}`);
    child.unref();
    writeFileSync(pidFile(paths, spec.name), String(child.pid));
    started.push(spec.name);
    log(`${spec.name}: started (pid ${child.pid}), log in ${logFile(paths, spec.name)}`);
  }

  await waitFor('Temporal dev server', 60_000, () => temporalHealthy(config), logFile(paths, 'temporal'));
  await waitFor('SeaweedFS S3', 60_000, () => ensureBucket(config), logFile(paths, 'seaweedfs'));
  await waitFor('SeaweedFS writes', 60_000, () => writeProbe(config), logFile(paths, 'seaweedfs'));
  const modelUrl = modelBaseUrl(paths);
  if (modelUrl) {
    await waitFor(
      'embedded model server',
      180_000,
      async () => {
        const res = await fetch(`${modelUrl.replace(/\/v1$/, '')}/health`);
        if (!res.ok) throw new Error(`health answered ${res.status}`);
      },
      logFile(paths, 'model'),
    );
  }
  for (const spec of specs) {
    if (runningPid(paths, spec) === undefined) {
      throw new Error(`${spec.name} exited during start-up; see ${logFile(paths, spec.name)}`);
    }
  }
  return { started };
}

/**
 * Stops the stack (or only the named services): SIGTERM, then SIGKILL for whatever has not exited
 * after a grace period.
 */
export async function stackDown(
  config: ExploraConfig,
  log: (line: string) => void = () => {},
  paths = stackPaths(),
  only?: ReadonlyArray<ServiceName>,
): Promise<void> {
  for (const spec of serviceSpecs(config, paths).reverse()) {
    if (only && !only.includes(spec.name)) continue;
    const pid = runningPid(paths, spec);
    if (pid === undefined) {
      log(`${spec.name}: not running`);
      continue;
    }
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + 20_000;
    while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (isAlive(pid)) {
      log(`${spec.name}: did not exit on SIGTERM within 20s; killing it`);
      process.kill(pid, 'SIGKILL');
    }
    rmSync(pidFile(paths, spec.name), { force: true });
    log(`${spec.name}: stopped`);
  }
}
