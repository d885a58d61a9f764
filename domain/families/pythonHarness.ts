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
