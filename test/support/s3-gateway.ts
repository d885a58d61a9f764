/**
 * A second SeaweedFS S3 gateway (`weed s3`) on free ports, in front of the local stack's filer,
 * with identities of its own: a test can reach the same data with credentials that the stack's
 * gateway does not know (e.g. from an AWS profile file), without touching the stack.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { stackPaths } from '../../stack/local-stack.js';
import { waitUntil } from './poll.js';

export interface S3Identity {
  name: string;
  accessKey: string;
  secretKey: string;
}

export interface S3Gateway {
  endpoint: string;
  close: () => Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** `port`: where to serve (default a free one): a test can point a client at it before the gateway is up. */
export async function startS3Gateway(dir: string, identities: S3Identity[], opts: { port?: number } = {}): Promise<S3Gateway> {
  const paths = stackPaths();
  const configFile = path.join(dir, 'seaweedfs-identities.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      identities: identities.map((i) => ({
        name: i.name,
        credentials: [{ accessKey: i.accessKey, secretKey: i.secretKey }],
        actions: ['Admin', 'Read', 'Write', 'List', 'Tagging'],
      })),
    }),
    { mode: 0o600 },
  );
  const [port, grpcPort] = [opts.port ?? (await freePort()), await freePort()];
  const child = spawn(
    path.join(paths.toolsDir, 'py', 'bin', 'weed'),
    [
      's3',
      `-filer=127.0.0.1:${paths.weedPorts.filer}`,
      '-ip.bind=127.0.0.1',
      `-port=${port}`,
      `-port.grpc=${grpcPort}`,
      '-port.iceberg=0',
      '-port.lance=0',
      `-config=${configFile}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const endpoint = `http://127.0.0.1:${port}`;
  // Any HTTP answer (403 to an anonymous request) means it serves.
  await waitUntil(
    async () => {
      if (child.exitCode !== null) throw new Error(`weed s3 exited (${child.exitCode}):\n${log}`);
      return fetch(endpoint, { signal: AbortSignal.timeout(1000) }).then(
        () => true,
        () => false,
      );
    },
    { timeoutMs: 30_000, intervalMs: 200, what: () => `the S3 gateway on ${endpoint}:\n${log}` },
  );
  return {
    endpoint,
    close: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
