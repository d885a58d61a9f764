/**
 * Programs that run with a dataset's Python environment (ApiLibrary.sandbox.python_environment:
 * BigCodeBench's venv of pinned libraries) in the sandbox's interpreter, as the family's own harness
 * runs the samples it scores: the environment's site-packages go first on sys.path (and their .pth
 * files are read), the harness's variables are set, and HOME is the run's folder unless set. So a
 * method's exploration snippet imports the same library versions as the solution is scored with.
 *
 * One line, placed as the module runtime's preamble is (after any `from __future__` lines), so a
 * traceback's line numbers move by exactly one; its helper names are deleted on that line.
 */
import { pyRepr } from '../pbe/pyrepr.js';
import type { ApiLibrary } from './library.js';
import { preambleIndex } from './moduleRuntime.js';

export type PythonEnvironment = NonNullable<NonNullable<ApiLibrary['sandbox']>['python_environment']>;

const H = '__explora_environment';

/** The preamble line (no newline) that sets up `environment`. */
export function pythonEnvironmentPreamble(environment: PythonEnvironment): string {
  const pattern = `${H}_os.path.join(${pyRepr(environment.path)}, 'lib', 'python*', 'site-packages')`;
  const environ = Object.entries(environment.environ ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`)
    .join(', ');
  return (
    `import glob as ${H}_glob, os as ${H}_os, site as ${H}_site, sys as ${H}_sys, time as ${H}_time; ` +
    `[(${H}_sys.path.insert(0, p), ${H}_site.addsitedir(p)) for p in sorted(${H}_glob.glob(${pattern}))]; ` +
    `${H}_os.environ.setdefault('HOME', ${H}_os.getcwd()); ` +
    `${H}_os.environ.update({${environ}}); ` +
    `${H}_time.tzset(); ` +
    `del ${H}_glob, ${H}_os, ${H}_site, ${H}_sys, ${H}_time`
  );
}

/** `program` run with `environment` (see above). */
export function withPythonEnvironment(program: string, environment: PythonEnvironment): string {
  const lines = program.split('\n');
  lines.splice(preambleIndex(lines), 0, pythonEnvironmentPreamble(environment));
  return lines.join('\n');
}
