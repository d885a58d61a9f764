import { execFile } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';
import { z } from 'zod';
import { environmentArgs, isolationArgs, readOnlyMountArgs, SANDBOX_PATH } from './bwrapPolicy.js';

/**
 * How the Python zygote is launched for each backend: inside bubblewrap (the project's one policy,
 * bwrapPolicy.ts, plus the zygote's capabilities) or directly. What each backend isolates is
 * described at the top of pythonExecutor.ts; this module only builds command lines.
 */
export type SandboxBackend = 'bwrap' | 'none';

export interface LaunchCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** Where the sandbox finds the zygote script. */
export const SANDBOX_ZYGOTE_PATH = '/sandbox/zygote.py';

const PythonLayoutSchema = z.object({
  executable: z.string(),
  prefix: z.string(),
  basePrefix: z.string(),
});
export type PythonLayout = z.infer<typeof PythonLayoutSchema>;

const PROBE_ARGS = [
  '-I',
  '-c',
  'import json,sys; print(json.dumps({"executable": sys.executable, "prefix": sys.prefix, "basePrefix": sys.base_prefix}))',
];

/**
 * Asks the interpreter where it lives, so exactly its directories can be mounted. Without blocking:
 * the executor's start overlaps with its caller's own work (scripts/evaluate.ts reads its input meanwhile).
 */
export function probePythonLayout(python: string): Promise<PythonLayout> {
  return new Promise((resolve, reject) => {
    execFile(python, PROBE_ARGS, { encoding: 'utf8', env: { PATH: SANDBOX_PATH } }, (error, out) => {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- an Error, typed as an Omit<> intersection
      if (error) reject(error);
      else {
        try {
          resolve(PythonLayoutSchema.parse(JSON.parse(out)));
        } catch (parseError) {
          reject(parseError as Error);
        }
      }
    });
  });
}

/**
 * Where the sandbox sees a venv (sys.prefix != sys.base_prefix): a fixed path, so that neither the
 * repository's path nor its parent folders appear in the sandbox. Mounted at its host path, a venv
 * under /tmp (a clone there keeps it in .tools/) would make bwrap create its parent folders in the
 * sandbox's private /tmp, where samples would see them. Python finds a venv by the pyvenv.cfg beside
 * (or above) the path it was started by, so the venv works at any path; its `home` (the base
 * interpreter) stays where the host has it.
 */
export const SANDBOX_VENV_PATH = '/opt/explora-python';

function isUnder(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir + '/');
}

interface PythonMounts {
  /** Host directories mounted read-only at the same path. */
  roots: string[];
  /** The venv's host directory, mounted at SANDBOX_VENV_PATH. */
  venv: string | undefined;
  /** The interpreter's path in the sandbox. */
  python: string;
}

/** The interpreter's sandbox path for a venv, or undefined if `python` is not inside the venv. */
function pythonInVenv(python: string, prefix: string): string | undefined {
  for (const [dir, venv] of [
    [dirname(python), prefix],
    [realpathSync(dirname(python)), realpathSync(prefix)],
  ] as const) {
    const rel = relative(venv, dir);
    if (!rel.startsWith('..') && !isAbsolute(rel)) return join(SANDBOX_VENV_PATH, rel, basename(python));
  }
  return undefined;
}

/** Directories the interpreter needs, resolved through symlinks, minus those under /usr; a venv apart. */
function pythonMounts(python: string, layout: PythonLayout): PythonMounts {
  const inVenv = layout.prefix !== layout.basePrefix ? pythonInVenv(python, layout.prefix) : undefined;
  const venvDirs = inVenv ? [layout.prefix, realpathSync(layout.prefix)] : [];
  const roots = new Set<string>();
  for (const path of inVenv ? [layout.basePrefix] : [layout.prefix, layout.basePrefix]) {
    roots.add(path);
    roots.add(realpathSync(path));
  }
  for (const executable of [python, layout.executable]) {
    const real = realpathSync(executable);
    // The interpreter binary may be a symlink out of the venv (e.g. to /usr/bin/python3.11).
    roots.add(real.slice(0, real.lastIndexOf('/')));
  }
  const needed = [...roots].filter((root) => !root.startsWith('/usr/') && !venvDirs.some((venv) => isUnder(root, venv)));
  return {
    // A root inside another root is mounted with it already.
    roots: needed.filter((root) => !needed.some((other) => other !== root && root.startsWith(other + '/'))).sort(),
    venv: inVenv ? realpathSync(layout.prefix) : undefined,
    python: inVenv ?? python,
  };
}

export interface BwrapLaunchOptions {
  bwrap: string;
  python: string;
  layout: PythonLayout;
  zygoteScript: string;
  zygoteConfig: string;
  /** Size of the sandbox's /tmp, shared by all samples' working directories. */
  tmpBytes: number;
  /** Bind the interpreter's shared-library symbols at start (see EAGER_BINDING). */
  eagerBinding: boolean;
  /** Host directories mounted read-only at their own paths (PythonExecutorOptions.readableDirs). */
  readableDirs?: readonly string[];
}

/**
 * LD_BIND_NOW for the zygote: the dynamic linker resolves every symbol of the interpreter and its
 * extension modules once, in the zygote, instead of at each sample's first call of each libc
 * function (setsid, dup2, setrlimit, setresuid...), which every sample would otherwise repeat,
 * copying the pages of the tables it writes. The zygote clears its environment before any sample
 * runs, so samples never see the variable; it has done its work by then.
 */
const EAGER_BINDING = { LD_BIND_NOW: '1' };

/** Capabilities the zygote keeps (it is root in a sandbox of its own); samples get none. */
const ZYGOTE_CAPABILITIES = [
  'CAP_SETUID', // drop each sample to its slot's uid
  'CAP_SETGID',
  'CAP_KILL', // kill a sample's processes after it has dropped to its uid
  'CAP_CHOWN', // hand each sample its working directory
  'CAP_DAC_OVERRIDE', // remove that directory afterwards
  'CAP_FOWNER',
  'CAP_SYS_ADMIN', // one-time: network namespace with loopback down, /proc with hidepid
];

export function bwrapLaunch(options: BwrapLaunchOptions): LaunchCommand {
  const mounts = pythonMounts(options.python, options.layout);
  const args = [
    ...isolationArgs({ tmpBytes: options.tmpBytes, tmpWorldWritable: false, ownUserNamespace: false }),
    // The interpreter's directories at their host paths (their parents traversable: /root is 0700
    // on the host, which would lock the samples' uids out), a venv at its fixed path, the zygote.
    ...readOnlyMountArgs([
      ...mounts.roots.map((root) => ({ host: root, sandbox: root })),
      ...(mounts.venv ? [{ host: mounts.venv, sandbox: SANDBOX_VENV_PATH }] : []),
      { host: options.zygoteScript, sandbox: SANDBOX_ZYGOTE_PATH },
      ...(options.readableDirs ?? []).map((dir) => ({ host: dir, sandbox: dir })),
    ]),
  ];
  if (process.getuid?.() === 0) {
    args.push('--cap-drop', 'ALL');
    for (const cap of ZYGOTE_CAPABILITIES) args.push('--cap-add', cap);
  }
  args.push(
    ...environmentArgs({ LANG: 'C.UTF-8', ...(options.eagerBinding ? EAGER_BINDING : {}) }),
    '--chdir',
    '/tmp',
    '--',
    // -S: no site startup (zygote.py adds site-packages itself, without running .pth code).
    mounts.python,
    '-I',
    '-S',
    '-B',
    SANDBOX_ZYGOTE_PATH,
    options.zygoteConfig,
  );
  return { command: options.bwrap, args, env: { PATH: SANDBOX_PATH } };
}

export function directLaunch(python: string, zygoteScript: string, zygoteConfig: string, eagerBinding: boolean): LaunchCommand {
  return {
    command: python,
    args: ['-I', '-S', '-B', zygoteScript, zygoteConfig],
    env: { PATH: SANDBOX_PATH, LANG: 'C.UTF-8', ...(eagerBinding ? EAGER_BINDING : {}) },
  };
}

/** Absolute path of bwrap, or undefined when it is not installed. */
