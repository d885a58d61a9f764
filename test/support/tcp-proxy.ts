/**
 * A TCP relay to a server that a test can take down and bring back on the same port: an outage
 * of the shared stack's Temporal as its clients see it, without touching the shared server.
 */
import net from 'node:net';

export interface TcpProxy {
  /** host:port clients connect to. */
  address: string;
  /** Stops listening and cuts every connection: clients see the server gone. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(upstream: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;
  const listen = async () => {
    server = net.createServer((client) => {
      const remote = net.connect(upstream.port, upstream.host);
      for (const s of [client, remote]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          remote.destroy();
        });
      }
      client.pipe(remote);
      remote.pipe(client);
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  };
  const down = async () => {
    const s = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await listen();
  return { address: `127.0.0.1:${port}`, down, up: listen, close: down };
}
