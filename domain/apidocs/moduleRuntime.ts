/**
 * Programs written against a generated module (PBE World's private library): the sandbox runs one
 * program text and has no such module on disk, so the program gets a one-line preamble that builds
 * the module from its source and registers it in `sys.modules`; `import <module>` then finds it.
 *
 * One line, so that the program's own traceback line numbers move by exactly one (whoever maps them
 * back, e.g. to show a model its error, subtracts one). The preamble's helper names are deleted at the
 * end of that line, so the program's globals hold nothing it did not define. Module frames in a
 * traceback show as `File "<module>"` with no source text: the module's implementation stays private.
 */
import { z } from 'zod';
import { pyRepr } from '../pbe/pyrepr.js';
import { LibraryRuntimeSchema, type LibraryRuntime, type PreparedProgram } from './library.js';

export type ModuleRuntime = Extract<LibraryRuntime, { kind: 'module' }>;

/** Helper names of the preamble; unlikely in a program, and deleted before the program's first line. */
const H = '__explora_module_runtime';

/** The preamble line (no newline) that makes `runtime.module` importable. */
export function modulePreamble(runtime: ModuleRuntime): string {
  const m = pyRepr(runtime.module);
  const source = pyRepr(runtime.source);
  const file = pyRepr(`<${runtime.module}>`);
  // dont_inherit: the program's own __future__ flags must not change how the module compiles.
  return (
    `import sys as ${H}_sys, types as ${H}_types; ` +
    `${H} = ${H}_types.ModuleType(${m}); ` +
    `exec(compile(${source}, ${file}, 'exec', dont_inherit=True), ${H}.__dict__); ` +
    `${H}_sys.modules[${m}] = ${H}; ` +
    `del ${H}_sys, ${H}_types, ${H}`
  );
}

const BLANK_OR_COMMENT = /^\s*(#.*)?\r?$/;
const FUTURE_IMPORT = /^from\s+__future__\s+import\s+[A-Za-z_][\w\s,]*(#.*)?\r?$/;

/**
 * Index of the line the preamble goes before: 0, unless the program opens with `from __future__`
 * imports, which Python accepts only at the top of a file; then right after the last of them (those
 * lines cannot fail, and every later line still moves by exactly one). Only one-line future imports
 * among blank and comment lines are recognised; one after a module docstring or spread over lines
 * stays below the preamble and Python reports it as misplaced.
 */
export function preambleIndex(lines: readonly string[]): number {
  let index = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (FUTURE_IMPORT.test(line)) index = i + 1;
    else if (!BLANK_OR_COMMENT.test(line)) break;
  }
  return index;
}

/** `program` with the module made importable by a one-line preamble (see above). */
export function prepareModuleProgram(runtime: ModuleRuntime, program: string): PreparedProgram {
  const parsed = LibraryRuntimeSchema.safeParse(runtime);
  // A bad runtime is the dataset's fault, not the program's: it must not count as a program error.
  if (!parsed.success) throw new Error(`prepareModuleProgram: invalid module runtime:\n${z.prettifyError(parsed.error)}`);
  if (parsed.data.kind !== 'module') throw new Error(`prepareModuleProgram: runtime kind is ${parsed.data.kind}, not module`);
  if (typeof program !== 'string') throw new Error(`prepareModuleProgram: program must be a string, got ${typeof program}`);
  const lines = program.split('\n');
  lines.splice(preambleIndex(lines), 0, modulePreamble(parsed.data));
  return { ok: true, program: lines.join('\n') };
}
