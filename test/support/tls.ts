/**
 * Test PKI and a TLS-terminating proxy in front of the local Temporal dev server (which has no
 * TLS), so a test can run explora against a Temporal frontend that requires client certificates.
 *
 * Certificates are made with the system's `openssl` (present wherever `ca-certificates` is): the
 * real tool an operator uses for a private CA, and no extra npm dependency for tests alone.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';

export interface CertPair {
  cert: string;
  key: string;
}

export interface TestPki {
  dir: string;
  /** The CA the server trusts for clients and that signed the server's certificate. */
  ca: CertPair;
  /** The server's certificate, for `serverName` (and 127.0.0.1). */
  server: CertPair;
  serverName: string;
  /** A client certificate signed by `ca`. */
  client: CertPair;
  /** A client certificate of another CA: the server refuses it. */
  rogueClient: CertPair;
}

function openssl(args: string[], cwd: string): void {
  try {
    execFileSync('openssl', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: Buffer };
    if (e.code === 'ENOENT') throw new Error('these tests make their certificates with openssl: install it (apt-get install openssl)');
    throw new Error(`openssl ${args.join(' ')} failed: ${e.stderr?.toString() ?? e.message}`);
  }
}

/** A CA (self-signed) and a leaf certificate signed by it, EC P-256 keys (fast to make). */
function makeCa(dir: string, name: string): CertPair {
  const cert = path.join(dir, `${name}.pem`);
  const key = path.join(dir, `${name}-key.pem`);
  openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', `/CN=${name}`, '-keyout', key, '-out', cert, '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'], dir);
  return { cert, key };
}

function makeLeaf(dir: string, name: string, ca: CertPair, ext: string): CertPair {
  const cert = path.join(dir, `${name}.pem`);
  const key = path.join(dir, `${name}-key.pem`);
  const csr = path.join(dir, `${name}.csr`);
  const extFile = path.join(dir, `${name}.ext`);
  writeFileSync(extFile, `${ext}\nbasicConstraints=CA:FALSE\n`);
  openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', `/CN=${name}`, '-keyout', key, '-out', csr], dir);
  openssl(['x509', '-req', '-in', csr, '-CA', ca.cert, '-CAkey', ca.key, '-CAcreateserial', '-days', '2', '-out', cert, '-extfile', extFile], dir);
  return { cert, key };
}

export function makeTestPki(dir: string, serverName = 'temporal.explora.test'): TestPki {
  mkdirSync(dir, { recursive: true });
  const ca = makeCa(dir, 'test-ca');
  const rogueCa = makeCa(dir, 'rogue-ca');
  return {
    dir,
    ca,
    serverName,
    server: makeLeaf(dir, 'server', ca, `subjectAltName=DNS:${serverName},IP:127.0.0.1\nextendedKeyUsage=serverAuth`),
    client: makeLeaf(dir, 'client', ca, 'extendedKeyUsage=clientAuth'),
    rogueClient: makeLeaf(dir, 'rogue-client', rogueCa, 'extendedKeyUsage=clientAuth'),
  };
}

export interface TlsProxy {
  port: number;
  /** Connections whose client certificate was accepted, and those refused. */
  accepted: () => number;
  refused: () => number;
  close: () => Promise<void>;
}

/**
 * Terminates TLS (HTTP/2 by ALPN, as gRPC needs), requires a client certificate signed by the
 * PKI's CA, and pipes the plain bytes to `upstream` (the dev server speaks gRPC without TLS).
 */
export async function startTlsProxy(pki: TestPki, upstream: { host: string; port: number }): Promise<TlsProxy> {
  let accepted = 0;
  let refused = 0;
  const sockets = new Set<net.Socket>();
  const server = tls.createServer(
    {
      cert: readFileSync(pki.server.cert),
      key: readFileSync(pki.server.key),
      ca: readFileSync(pki.ca.cert),
      requestCert: true,
      rejectUnauthorized: true,
      ALPNProtocols: ['h2'],
    },
    (client) => {
      accepted++;
      const backend = net.connect(upstream.port, upstream.host);
      sockets.add(client);
      sockets.add(backend);
      client.pipe(backend).pipe(client);
      const done = () => {
        client.destroy();
        backend.destroy();
        sockets.delete(client);
        sockets.delete(backend);
      };
      client.on('error', done).on('close', done);
      backend.on('error', done).on('close', done);
    },
  );
  server.on('tlsClientError', () => refused++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    accepted: () => accepted,
    refused: () => refused,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
