/**
 * The one bubblewrap policy (infra/sandbox/bwrapPolicy.ts), checked once for every sandbox built on
 * it: the Python zygote's launch, the process runner's steps and the warm compilers' jails each take
 * the policy's isolation flags, its mounts and its empty environment, and add only their own. What a
 * hostile program can do inside is tested on the real sandboxes: test/sandbox/hostile.e2e.test.ts
 * (Python) and process-hostile.e2e.test.ts (every process-run language): no network, none of the
 * worker's environment, no writes outside its directory.
 */
import { describe, expect, it } from 'vitest';
import {
  environmentArgs,
  isolationArgs,
  readOnlyMountArgs,
  SANDBOX_PATH,
  type IsolationOptions,
  type Mount,
} from '../../infra/sandbox/bwrapPolicy.js';
import { bwrapArgs, type StepSandbox } from '../../infra/sandbox/process/bwrapStep.js';
import type { SandboxStep } from '../../infra/sandbox/process/contract.js';
import { resolvePythonExecutable } from '../../infra/sandbox/python.js';
import { bwrapLaunch, probePythonLayout, SANDBOX_ZYGOTE_PATH } from '../../infra/sandbox/pythonLaunch.js';
import { jailArgv } from '../../infra/sandbox/warm/jail.js';

/** Where `part` occurs in `argv` as a contiguous run, or -1. */
function indexOfRun(argv: readonly string[], part: readonly string[]): number {
  for (let i = 0; i + part.length <= argv.length; i++) if (part.every((arg, j) => argv[i + j] === arg)) return i;
  return -1;
}

/** The names bwrap is told to set (the environment a sandbox starts with). */
function setenvNames(argv: readonly string[]): string[] {
  return argv.flatMap((arg, i) => (arg === '--setenv' ? [argv[i + 1]!] : []));
}

/** bwrap's own arguments: those before the `--` that starts the command. */
function bwrapPart(argv: readonly string[]): string[] {
  return argv.slice(0, argv.indexOf('--'));
}

const TOOL: Mount = { host: '/usr/lib/os-release', sandbox: '/opt/explora-tool/os-release' };

async function zygoteArgv(): Promise<string[]> {
  const python = resolvePythonExecutable();
  return bwrapLaunch({
    bwrap: 'bwrap',
    python,
    layout: await probePythonLayout(python),
    zygoteScript: '/usr/lib/os-release',
    zygoteConfig: '{}',
    tmpBytes: 64 << 20,
    eagerBinding: true,
  }).args;
}

function stepArgv(uid: number | undefined): string[] {
  const sandbox: StepSandbox = {
    bwrap: 'bwrap',
    uid,
    buildDir: '/nonexistent-build',
    writableBuild: false,
    mounts: [TOOL],
    tmpBytes: 32 << 20,
  };
  const step: SandboxStep = {
    kind: 'sandbox',
    argv: ['/bin/true'],
    env: { LANG: 'C.UTF-8' },
    limits: {
      timeoutMs: 1000,
      memoryBytes: 1 << 28,
      memoryKind: 'address-space',
      maxProcesses: 8,
      maxFileBytes: 1 << 20,
      maxOutputBytes: 1024,
      maxOpenFiles: 64,
    },
  };
  return bwrapArgs(sandbox, step);
}

function jailArgs(): string[] {
  return jailArgv(
    {
      jobDir: '/nonexistent-job',
      readOnly: ['/etc/os-release'],
      uid: 61000,
      limits: { cpuSeconds: 5, memoryBytes: 0, processes: 8, fileBytes: 1 << 20, openFiles: 64 },
    },
    ['/bin/true'],
  ).slice(1);
}

describe('the bubblewrap policy', () => {
  it('isolates: new pid, network, ipc and uts namespaces, a new root of read-only system directories, fresh /proc, /dev and /tmp', () => {
    const flags = isolationArgs({ tmpBytes: 1 << 20, tmpWorldWritable: false, ownUserNamespace: false });
    for (const flag of ['--die-with-parent', '--new-session', '--unshare-pid', '--unshare-net', '--unshare-ipc', '--unshare-uts'])
      expect(flags).toContain(flag);
    expect(indexOfRun(flags, ['--ro-bind', '/usr', '/usr'])).toBeGreaterThanOrEqual(0);
    expect(indexOfRun(flags, ['--ro-bind', '/etc', '/etc'])).toBeGreaterThanOrEqual(0);
    expect(indexOfRun(flags, ['--proc', '/proc'])).toBeGreaterThanOrEqual(0);
    expect(indexOfRun(flags, ['--dev', '/dev'])).toBeGreaterThanOrEqual(0);
    expect(indexOfRun(flags, ['--size', String(1 << 20), '--tmpfs', '/tmp'])).toBeGreaterThanOrEqual(0);
    // Nothing of the host is bound writable by the policy itself.
    expect(flags).not.toContain('--bind');
  });

  it("mounts a runner's paths read-only, their parents traversable, never creating a directory under /usr or /etc", () => {
    expect(readOnlyMountArgs([TOOL, { host: '/usr/lib/jvm', sandbox: '/usr/lib/jvm' }])).toEqual([
      '--perms',
      '0755',
      '--dir',
      '/opt',
      '--perms',
      '0755',
      '--dir',
      '/opt/explora-tool',
      '--ro-bind',
      TOOL.host,
      TOOL.sandbox,
      '--ro-bind',
      '/usr/lib/jvm',
      '/usr/lib/jvm',
    ]);
  });

  it('clears the environment: PATH and the variables the runner names, nothing else', () => {
    expect(environmentArgs({ LANG: 'C.UTF-8' })).toEqual(['--clearenv', '--setenv', 'PATH', SANDBOX_PATH, '--setenv', 'LANG', 'C.UTF-8']);
  });
});

describe.each([
  {
    name: 'the Python zygote',
    argv: zygoteArgv,
    isolation: { tmpBytes: 64 << 20, tmpWorldWritable: false, ownUserNamespace: false },
    env: ['PATH', 'LANG', 'LD_BIND_NOW'],
  },
  {
    name: "a process runner's step (root: a slot uid)",
    argv: async () => stepArgv(61001),
    isolation: { tmpBytes: 32 << 20, tmpWorldWritable: true, ownUserNamespace: false },
    env: ['PATH', 'LANG'],
  },
  {
    name: "a process runner's step (rootless)",
    argv: async () => stepArgv(undefined),
    isolation: { tmpBytes: 32 << 20, tmpWorldWritable: true, ownUserNamespace: true },
    env: ['PATH', 'LANG'],
  },
  {
    name: "a warm compiler's jail",
    argv: async () => jailArgs(),
    isolation: { tmpBytes: 256 << 20, tmpWorldWritable: true, ownUserNamespace: false },
    env: ['PATH', 'LANG', 'HOME'],
  },
] satisfies Array<{ name: string; argv: () => Promise<string[]>; isolation: IsolationOptions; env: string[] }>)(
  '$name',
  ({ argv, isolation, env }) => {
    it("starts with the policy's isolation flags", async () => {
      expect(indexOfRun(await argv(), isolationArgs(isolation))).toBe(0);
    });

    it('clears the environment and sets only its own variables', async () => {
      const own = bwrapPart(await argv());
      expect(own.filter((arg) => arg === '--clearenv')).toHaveLength(1);
      expect(setenvNames(own).sort()).toEqual([...env].sort());
    });

    it('binds nothing of the host beyond the policy, read-only, but its own working directory', async () => {
      const own = bwrapPart(await argv());
      const writable = own.flatMap((arg, i) => (arg === '--bind' ? [own[i + 2]!] : []));
      expect(writable.every((path) => path === '/build' || path === '/job')).toBe(true);
      expect(own).not.toContain('--share-net');
    });
  },
);

it('the zygote mounts its script read-only through the policy', async () => {
  const argv = await zygoteArgv();
  expect(indexOfRun(argv, ['--ro-bind', '/usr/lib/os-release', SANDBOX_ZYGOTE_PATH])).toBeGreaterThan(0);
});
