/**
 * Python shared by the harnesses that families run in the sandbox (bigcodebench/harness.ts,
 * mercury/harness.ts): each harness is a Python function's source, and these are parts of its body.
 */

/**
 * The write-only stream the peers' swallow_io gives a program for stdout, stderr and stdin
 * (bigcode's and BigCodeBench's WriteOnlyStringIO): it keeps what is written and refuses to be read.
 * Python lines indented for a harness function's body, as class `name` (each harness keeps the
 * name its programs have always carried, so that the programs stay the same to the byte).
 */
export function writeOnlyStreamClass(name: string): string {
  return `    class ${name}(io.StringIO):
        def read(self, *args, **kwargs):
            raise IOError
        def readline(self, *args, **kwargs):
            raise IOError
        def readlines(self, *args, **kwargs):
            raise IOError
        def readable(self, *args, **kwargs):
            return False`;
}

/**
 * Python lines for a harness function's body (apps, livecodebench, evalplus): the real standard
 * output kept aside as `saved` (the report goes there) and file descriptors 1 and 2 sent to
 * /dev/null, so that nothing a sample prints, nor a process it starts, reaches the run's output.
 */
export const SILENCED_OUTPUT = `    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)`;

/**
 * The imports APPS's testing_util runs before a solution (LiveCodeBench's testing_util keeps them),
 * as a Python line for a harness function's body that sets `prelude`; each peer sets its own
 * recursion limit (`recursionLimit`, a Python expression).
 */
export function importPreludeLine(recursionLimit: string): string {
  const modules =
    '"string", "re", "datetime", "collections", "heapq", "bisect", "copy", "math", "random", "statistics", "itertools", "functools", "operator", "io", "sys", "json"';
  return String.raw`    prelude = "".join("from %s import *\n" % m for m in (${modules}, "builtins", "typing")) + "".join("import %s\n" % m for m in (${modules})) + "sys.setrecursionlimit(${recursionLimit})\n"`;
}
