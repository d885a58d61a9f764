/**
 * Test PKI and a TLS-terminating proxy in front of the local Temporal dev server (which has no
 * TLS), so a test can run explora against a Temporal frontend that requires client certificates.
 *
 * Certificates are made with the system's `openssl` (present wherever `ca-certificates` is): the
 * real tool an operator uses for a private CA, and no extra npm dependency for tests alone.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
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
  /** Another CA, and a client certificate it signed: the server refuses that one. */
  rogueCa: CertPair;
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
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      `/CN=${name}`,
      '-keyout',
      key,
      '-out',
      cert,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
  return { cert, key };
}

function makeLeaf(dir: string, name: string, ca: CertPair, ext: string): CertPair {
  const cert = path.join(dir, `${name}.pem`);
  const key = path.join(dir, `${name}-key.pem`);
  const csr = path.join(dir, `${name}.csr`);
  const extFile = path.join(dir, `${name}.ext`);
  writeFileSync(extFile, `${ext}\nbasicConstraints=CA:FALSE\n`);
  openssl(
    [
      'req',
      '-new',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-subj',
      `/CN=${name}`,
      '-keyout',
      key,
      '-out',
      csr,
    ],
    dir,
  );
  openssl(
    ['x509', '-req', '-in', csr, '-CA', ca.cert, '-CAkey', ca.key, '-CAcreateserial', '-days', '2', '-out', cert, '-extfile', extFile],
    dir,
  );
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
    rogueCa,
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

export interface GrpcAuthProxy {
  port: number;
  /** Calls let through with the right key, and calls refused. */
  allowed: () => number;
  refused: () => number;
  close: () => Promise<void>;
}

/**
 * An HTTP/2 gRPC proxy over TLS (server certificate of the PKI, no client certificate) that lets a
 * call through only with `authorization: Bearer <apiKey>`, as Temporal Cloud checks its API keys,
 * and answers UNAUTHENTICATED otherwise. Calls are forwarded stream by stream to `upstream`.
 */
export async function startApiKeyProxy(pki: TestPki, upstream: { host: string; port: number }, apiKey: string): Promise<GrpcAuthProxy> {
  let allowed = 0;
  let refused = 0;
  const backend = http2.connect(`http://${upstream.host}:${upstream.port}`);
  backend.on('error', () => {});
  const server = http2.createSecureServer({
    cert: readFileSync(pki.server.cert),
    key: readFileSync(pki.server.key),
    ALPNProtocols: ['h2'],
  });
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (s) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });
  server.on('stream', (stream, headers) => {
    stream.on('error', () => {});
    if (headers.authorization !== `Bearer ${apiKey}`) {
      refused++;
      // A trailers-only gRPC answer: status 16, UNAUTHENTICATED.
      stream.respond(
        {
          ':status': 200,
          'content-type': 'application/grpc',
          'grpc-status': '16',
          'grpc-message': 'Request unauthorized: invalid API key',
        },
        { endStream: true },
      );
      return;
    }
    allowed++;
    const forwarded: http2.OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(headers)) if (!k.startsWith(':') || k === ':method' || k === ':path') forwarded[k] = v;
    const call = backend.request(forwarded);
    // Either side going away (a long poll cancelled at a worker's shutdown) ends the other.
    const gone = () => stream.destroyed || stream.closed;
    call.on('error', () => {
      if (!gone()) stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
    });
    stream.on('close', () => {
      if (!call.closed) call.close(http2.constants.NGHTTP2_CANCEL);
    });
    stream.pipe(call);
    call.on('response', (responseHeaders) => {
      if (gone()) return;
      const trailersOnly = responseHeaders['grpc-status'] !== undefined;
      stream.respond(responseHeaders, trailersOnly ? { endStream: true } : { waitForTrailers: true });
      if (trailersOnly) return;
      let trailers: http2.OutgoingHttpHeaders = {};
      call.on('trailers', (t) => (trailers = t));
      stream.on('wantTrailers', () => {
        if (!gone()) stream.sendTrailers(trailers);
      });
      call.pipe(stream);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    allowed: () => allowed,
    refused: () => refused,
    close: async () => {
      for (const s of sessions) s.destroy();
      backend.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
