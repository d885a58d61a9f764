/**
 * Programs that run with a dataset's Python environment (ApiLibrary.sandbox.python_environment:
 * BigCodeBench's venv of pinned libraries) in the sandbox's interpreter: the environment's
 * site-packages go first on sys.path (and their .pth files are read), as the family's own harness
 * does for the samples it scores, so a method's exploration snippet imports the same library
 * versions as the solution is scored with.
 *
 * One line, placed as the module runtime's preamble is (after any `from __future__` lines), so a
 * traceback's line numbers move by exactly one; its helper names are deleted on that line.
 */
import { pyRepr } from '../pbe/pyrepr.js';
import { preambleIndex } from './moduleRuntime.js';

const H = '__explora_environment';

/** The preamble line (no newline) that puts `environment`'s site-packages first on sys.path. */
export function pythonEnvironmentPreamble(environment: string): string {
  const pattern = `${H}_os.path.join(${pyRepr(environment)}, 'lib', 'python*', 'site-packages')`;
  return (
    `import glob as ${H}_glob, os as ${H}_os, site as ${H}_site, sys as ${H}_sys; ` +
    `[(${H}_sys.path.insert(0, p), ${H}_site.addsitedir(p)) for p in sorted(${H}_glob.glob(${pattern}))]; ` +
    `del ${H}_glob, ${H}_os, ${H}_site, ${H}_sys`
  );
}

/** `program` run with `environment`'s libraries first (see above). */
export function withPythonEnvironment(program: string, environment: string): string {
  const lines = program.split('\n');
  lines.splice(preambleIndex(lines), 0, pythonEnvironmentPreamble(environment));
  return lines.join('\n');
}
