/**
 * A long-lived compiler in the jail, spoken to one request line and one answer line at a time
 * (JavacServer.java, ts/tscServer.cjs). The jail's job directory is the root of the process
 * runner's build directories (each sample's build directory is a subdirectory of it, owned by the
 * server's uid while it compiles: warmToolchains.ts's ServedCompiler). A request past its deadline
 * kills the server (and every process in its jail); that request is a timeout, the others in
 * flight are sent again to a fresh server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { jailArgv, type JailSpec } from './jail.js';

export class ServerRestarted extends Error {}
export class ServerTimeout extends Error {}

interface Pending {
  resolve: (line: string) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export class LineServer {
  private child: ChildProcess | undefined;
  private ready: Promise<void> | undefined;
  private readonly pending = new Map<string, Pending>();
  private stderr = '';

  constructor(
    private readonly spec: JailSpec,
    private readonly command: string[],
    /** Reads the id out of an answer line; the first line (the server's banner) has none. */
    private readonly answerId: (line: string) => string | undefined,
  ) {}

  start(): Promise<void> {
    if (this.ready) return this.ready;
    const argv = jailArgv(this.spec, this.command);
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin' } });
    this.child = child;
    this.stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-8192);
    });
    this.ready = new Promise((resolve, reject) => {
      let banner = false;
      createInterface({ input: child.stdout! }).on('line', (line) => {
        if (!banner) {
          banner = true;
          resolve();
          return;
        }
        const id = this.answerId(line);
        const waiting = id === undefined ? undefined : this.pending.get(id);
        if (!waiting || id === undefined) return;
        this.pending.delete(id);
        clearTimeout(waiting.timer);
        waiting.resolve(line);
      });
      child.on('exit', (code, signal) => {
        if (this.child === child) {
          this.child = undefined;
          this.ready = undefined;
        }
        if (!banner)
          reject(new Error(`compiler server ${this.command.join(' ')} exited (${code ?? signal}) before it was ready: ${this.stderr}`));
        for (const [id, waiting] of this.pending) {
          clearTimeout(waiting.timer);
          waiting.reject(new ServerRestarted(`compiler server exited (${code ?? signal})`));
          this.pending.delete(id);
        }
      });
    });
    return this.ready;
  }

  async request(id: string, line: string, timeoutMs: number): Promise<string> {
    for (let attempt = 0; ; attempt++) {
      await this.start();
      try {
        return await new Promise<string>((resolve, reject) => {
          const timer = setTimeout(() => {
            this.pending.delete(id);
            reject(new ServerTimeout(`no answer within ${timeoutMs} ms`));
            this.child?.kill('SIGKILL');
          }, timeoutMs);
          this.pending.set(id, { resolve, reject, timer });
          this.child!.stdin!.write(line + '\n');
        });
      } catch (error) {
        if (error instanceof ServerRestarted && attempt === 0) continue;
        throw error;
      }
    }
  }

  async close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    this.ready = undefined;
    if (!child) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }
}
