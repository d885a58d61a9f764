#!/usr/bin/env node
// Runs a Dockerfile's install steps on this machine, in a temporary folder standing in for the
// image, since CI here cannot pull base images: its COPY lines copy from the repository, its ENV
// lines set the environment and its RUN lines run with bash in WORKDIR, in order, so that a step
// that cannot succeed in the image (a stale lock under `npm ci`, a script that is not copied, a
// missing file) fails here. RUN lines of the system's package manager (apt-get) are not run, they
// belong to the base image; each package they name must be known to this machine's apt-cache.
//
//   node .ci/check-dockerfile.mjs [deploy/worker.Dockerfile]
//
// Each step's output goes to a log file beside the temporary folder; a failing step prints its
// tail and the log's path. The folder is removed when every step passed.
import { execFileSync, spawnSync } from 'node:child_process';
import console from 'node:console';
import process from 'node:process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dockerfile = path.resolve(root, process.argv[2] ?? 'deploy/worker.Dockerfile');
const say = (line) => console.error(`check-dockerfile: ${line}`);
const fail = (line) => {
  say(line);
  process.exit(1);
};

/** The Dockerfile's instructions, continuation lines joined, comments and blank lines dropped. */
function instructions(text) {
  const out = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!pending && (line === '' || line.startsWith('#'))) continue;
    if (pending && line.startsWith('#')) continue;
    const joined = pending ? `${pending} ${line}` : line;
    if (joined.endsWith('\\')) {
      pending = joined.slice(0, -1).trim();
      continue;
    }
    pending = '';
    const space = joined.search(/\s/);
    out.push({ op: joined.slice(0, space).toUpperCase(), args: joined.slice(space + 1).trim() });
  }
  return out;
}

/** `KEY=value ...` or the older `KEY value` form of ENV. */
function envPairs(args) {
  if (!args.includes('=')) {
    const [key, ...rest] = args.split(/\s+/);
    return [[key, rest.join(' ')]];
  }
  return [...args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("([^"]*)"|\S*)/g)].map((m) => [m[1], m[3] ?? m[2]]);
}

if (!existsSync(dockerfile)) fail(`${dockerfile} does not exist`);
const image = mkdtempSync(path.join(tmpdir(), 'explora-image-'));
const logs = `${image}.logs`;
mkdirSync(logs);
// The environment a build starts from: the base image's PATH (here the machine's, for node, npm and
// python3) and a HOME for npm's and pip's caches; nothing of this shell's EXPLORA_* settings.
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', LANG: 'C.UTF-8' };
let workdir = '/';
let step = 0;
const inImage = (p) => path.join(image, path.posix.isAbsolute(p) ? p : path.posix.join(workdir, p));

for (const { op, args } of instructions(readFileSync(dockerfile, 'utf8'))) {
  switch (op) {
    case 'FROM':
    case 'ENTRYPOINT':
    case 'CMD':
    case 'EXPOSE':
    case 'LABEL':
    case 'USER':
    case 'ARG':
      break;
    case 'WORKDIR':
      workdir = path.posix.isAbsolute(args) ? args : path.posix.join(workdir, args);
      mkdirSync(inImage('.'), { recursive: true });
      break;
    case 'ENV':
      for (const [k, v] of envPairs(args)) env[k] = v;
      break;
    case 'COPY': {
      const parts = args.split(/\s+/).filter((p) => !p.startsWith('--'));
      const dest = parts.pop();
      for (const src of parts) {
        const from = path.join(root, src);
        if (!existsSync(from)) fail(`COPY ${src}: ${src} is not in the repository`);
        const to = dest.endsWith('/') || parts.length > 1 ? path.join(inImage(dest), path.basename(src)) : inImage(dest);
        mkdirSync(path.dirname(to), { recursive: true });
        cpSync(from, to, {
          recursive: true,
          filter: (f) => !/(^|\/)(node_modules|__pycache__|\.tools|\.data)(\/|$)/.test(path.relative(root, f)),
        });
      }
      break;
    }
    case 'RUN': {
      step++;
      if (/\bapt-get\b/.test(args)) {
        const packages = (args.match(/apt-get install\s+(.*?)(&&|$)/)?.[1] ?? '').split(/\s+/).filter((p) => p && !p.startsWith('-'));
        const unknown = packages.filter((p) => spawnSync('apt-cache', ['show', p], { stdio: 'ignore' }).status !== 0);
        if (unknown.length) fail(`RUN ${step}: apt-get install names packages this machine's apt does not know: ${unknown.join(', ')}`);
        say(`RUN ${step}: skipped, the base image's packages (${packages.join(' ')}: all known to apt)`);
        break;
      }
      const log = path.join(logs, `run-${step}.log`);
      const fd = openSync(log, 'w');
      const started = Date.now();
      const run = spawnSync('bash', ['-euo', 'pipefail', '-c', args], { cwd: inImage('.'), env, stdio: ['ignore', fd, fd] });
      closeSync(fd);
      const seconds = ((Date.now() - started) / 1000).toFixed(0);
      if (run.status !== 0) {
        say(`RUN ${step} failed (exit ${run.status ?? run.signal}, ${seconds} s): ${args}`);
        process.stderr.write(execFileSync('tail', ['-n', '20', log], { encoding: 'utf8' }));
        fail(`the whole output: ${log}; the image's files: ${image}`);
      }
      say(`RUN ${step} ok (${seconds} s): ${args}`);
      break;
    }
    default:
      fail(`${op} is not an instruction this check knows; teach .ci/check-dockerfile.mjs what it does`);
  }
}
rmSync(image, { recursive: true, force: true });
rmSync(logs, { recursive: true, force: true });
say(`${path.relative(root, dockerfile)}: every install step ran`);
