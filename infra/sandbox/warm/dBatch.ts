/**
 * D: several programs per ldc2 call (the process runner's `compileBatch`, contract.ts). A lone
 * MultiPL-E program costs ldc2 ~50 ms of start and Phobos imports and ~50 ms of link for a few ms
 * of its own code; a batch pays both once.
 *
 * The batch (its build directory):
 *   __explora_p<k>.d    program k as module `__explora_p<k>`: the line `module __explora_p<k>;
 *                       #line 1 "program.d"`, then the program byte for byte, its empty `void
 *                       main(){}` blanked (spaces: lines and columns unchanged). `#line` makes
 *                       `__FILE__`, assert and exception locations say `program.d` at the program's
 *                       own line numbers, as alone (`__FILE_FULL_PATH__`: /build/program.d, as alone);
 *   __explora_batch.d   the root: the only `void main(){}`, and a `shared static this()` that hides
 *                       every module whose name starts with `__explora_p` from druntime's unittest
 *                       runner (nulls its entry in the `__minfo` section, after the module
 *                       constructors were sorted and run, before the tests run: the runner skips
 *                       null entries);
 * compiled with the lone step's own command (`ldc2 -unittest`), the sources in place of program.d.
 * Program k's binary is a copy of the batch's with the name of its module's ModuleInfo
 * (`__explora_p<k>` then NUL) overwritten by `program` and NULs: druntime's runner then sees one
 * module, named as alone, so its summary ("1 modules passed unittests", "1/1 modules FAILED
 * unittests"), its choice of printing a failed assert as `program.d(9): [unittest] Assertion
 * failure` (it compares the assert's file with the module's name) and the trace of any other
 * throwable (same frames: the runner, main and druntime are those of a lone binary) are the lone
 * ones. Its run directory holds what a lone compile leaves, `program.d`, `program` and `program.o`
 * (the batch's object, all the batch's programs' code, in place of its own), its run step is the
 * lone one.
 * A failed batch compile is nobody's outcome: the same sources with `#line 1 "p<k>/program.d"` are
 * checked (`ldc2 -unittest -o-`, semantics only), every program an error names is answered `alone`
 * (compiled on its own: its own diagnostics, its own compile_error), and the rest compiled again
 * (strictly fewer, so this ends); a timeout, a signal, a sandbox failure, an error naming no program
 * or a link error answers every remaining program `alone`.
 *
 * What a module of a batch sees differently from a lone `program`, and how each is kept out
 * (`refusal` names it; the program is compiled alone):
 *   - its module name (`__explora_p<k>` at compile time): what can print or compare it is refused:
 *     `__MODULE__`, `__FUNCTION__`, `__PRETTY_FUNCTION__`, `.stringof`, `.mangleof`, `typeid`,
 *     `__traits`, `mixin` (a string mixin can spell any of them), `ModuleInfo`, `std.traits`'
 *     `fullyQualifiedName`/`moduleName`/`packageName`, demangling, and `class`/`interface` (an
 *     object's default toString and an uncaught exception of a class of its own print the qualified
 *     name); a `module` declaration of its own;
 *   - the other modules' code running: module constructors and destructors (`static this`,
 *     `shared static this`, `pragma(crt_constructor)`) are refused; `pragma`, `extern` (C symbols,
 *     druntime's `rt_options`), `asm`, `core.runtime` (the unittest runner, arguments) too;
 *   - `main`: exactly one, the empty `void main(){}` the tests bring (with unittests present a lone
 *     binary never runs it), and a `unittest` block;
 *   - the other programs' statics and TLS in its address space (RLIMIT_AS): a batch binary whose
 *     loaded image and TLS template exceed MAX_IMAGE_BYTES is not used (every program alone);
 *   - string imports (`import("file")`) and names starting `__explora`: refused.
 * A program can read its binary, which holds the compiled code of the other programs of its batch
 * (as Rust's and Go's batches: rsBatch.ts); it cannot change them, nor see their output or results.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExecutionLimits } from '../../../domain/execution/types.js';
import type { BatchCompile, BatchOutcome, SandboxStep } from '../process/contract.js';
import { loadedImageBytes, MAX_IMAGE_BYTES, PT_LOAD, PT_TLS } from './rsBatch.js';

const MODULE_PREFIX = '__explora_p';
const ROOT_FILE = '__explora_batch.d';

const REFUSED_WORDS =
  /\b(__MODULE__|__FUNCTION__|__PRETTY_FUNCTION__|__traits|stringof|mangleof|typeid|mixin|ModuleInfo|fullyQualifiedName|moduleName|packageName|demangle|mangledName|class|interface|module|extern|pragma|asm|Runtime|runtime|rt_options|rt_envvars_enabled|rt_cmdline_enabled|Object)\b/;
const STATIC_CONSTRUCTOR = /\bstatic\s+~?\s*this\b/;
const STRING_IMPORT = /\bimport\s*\(/;
const EMPTY_MAIN = /^void[ \t]+main[ \t]*\([ \t]*\)[ \t]*\{[ \t]*\}[ \t]*$/m;

/** Why a program must compile alone, or null when it may share an ldc2 call. */
export function refusal(program: string): string | null {
  if (program.includes('__explora')) return 'a name of the batch';
  if (program.startsWith('#!')) return 'a script line';
  if (/#\s*line\b/.test(program)) return 'a `#line`';
  const word = REFUSED_WORDS.exec(program);
  if (word) return `\`${word[1]}\``;
  if (STATIC_CONSTRUCTOR.test(program)) return 'a static constructor or destructor';
  if (STRING_IMPORT.test(program)) return 'a string import';
  if (!/\bunittest\b/.test(program)) return 'no unittest';
  const mains = program.match(/\bmain\b/g)?.length ?? 0;
  if (mains !== 1 || !EMPTY_MAIN.test(program)) return 'a `main` other than `void main(){}`';
  return null;
}

/** Program `k` as module `__explora_p<k>`, its file name in locations `file`. */
export function batchModule(program: string, k: number, file: string): string {
  const blanked = program.replace(EMPTY_MAIN, (main) => ' '.repeat(main.length));
  return `module ${MODULE_PREFIX}${k}; #line 1 "${file}"\n${blanked}`;
}

/** The root module: the batch's main, and the constructor that hides the other programs' modules from the unittest runner. */
export function batchRoot(): string {
  return [
    'module __explora_batch;',
    'import core.sys.posix.sys.mman : mprotect, PROT_READ, PROT_WRITE;',
    'extern (C) extern __gshared immutable(ModuleInfo)* __start___minfo;',
    'extern (C) extern __gshared immutable(ModuleInfo)* __stop___minfo;',
    '// Runs after the module constructors were sorted, before the unittests: the runner skips null entries.',
    'shared static this()',
    '{',
    '    const begin = cast(size_t) &__start___minfo, end = cast(size_t) &__stop___minfo;',
    '    const page = begin & ~cast(size_t) 4095;',
    '    mprotect(cast(void*) page, end - page, PROT_READ | PROT_WRITE);',
    '    for (auto slot = cast(immutable(ModuleInfo)**) begin; cast(size_t) slot < end; slot++)',
    `        if (*slot !is null && (*slot).name.length > ${MODULE_PREFIX.length} && (*slot).name[0 .. ${MODULE_PREFIX.length}] == "${MODULE_PREFIX}")`,
    '            *cast(size_t*) slot = 0;',
    '}',
    'void main(){}',
    '',
  ].join('\n');
}

/** The batch's files: each program's module (locations `program.d`) and the root; with `blame`, under blame/ with locations `p<k>/program.d`. */
export function batchFiles(programs: readonly string[], blame = false): Record<string, string> {
  const files: Record<string, string> = {};
  programs.forEach((program, k) => {
    files[`${blame ? 'blame/' : ''}${MODULE_PREFIX}${k}.d`] = batchModule(program, k, blame ? `p${k}/program.d` : 'program.d');
  });
  if (!blame) files[ROOT_FILE] = batchRoot();
  return files;
}

/** The programs ldc2's diagnostics of a blame check name; null when an error names none. */
export function blameLdc(output: string, count: number): number[] | null {
  const blamed = new Set<number>();
  for (const m of output.matchAll(/\bp(\d+)\/program\.d\(/g)) if (Number(m[1]) < count) blamed.add(Number(m[1]));
  return blamed.size ? [...blamed].sort((a, b) => a - b) : null;
}

/** Program `k`'s binary: the batch's with its module named `program`; null if the batch binary is not usable. */
export function programBinary(batchBinary: Buffer, k: number): Buffer | null {
  const image = loadedImageBytes(batchBinary, [PT_LOAD, PT_TLS]);
  if (image === null || image > MAX_IMAGE_BYTES) return null;
  const name = Buffer.from(`${MODULE_PREFIX}${k}\0`, 'latin1');
  const at = batchBinary.indexOf(name);
  if (at < 0 || batchBinary.indexOf(name, at + 1) >= 0) return null;
  const own = Buffer.from(batchBinary);
  own.fill(0, at, at + name.length);
  own.write('program', at, 'latin1');
  return own;
}

/** The batch's compile step: the lone command on the batch's sources, limits scaled for the batch. */
export function batchCompileStep(lone: SandboxStep, count: number, check = false): SandboxStep {
  const at = lone.argv.indexOf('program.d');
  if (at < 0 || !lone.argv.includes('-of=program'))
    throw new Error(`the D batch cannot reuse the lone compile command ${lone.argv.join(' ')}`);
  const sources = Array.from({ length: count }, (_, k) => `${check ? 'blame/' : ''}${MODULE_PREFIX}${k}.d`);
  const rest = lone.argv.filter((_, i) => i !== at);
  const argv = check
    ? [...rest.filter((a) => a !== '-of=program'), '-o-', ...sources]
    : [...rest.map((a) => (a === '-of=program' ? '-of=batch' : a)), ...sources, ROOT_FILE];
  return {
    ...lone,
    argv,
    limits: {
      ...lone.limits,
      timeoutMs: lone.limits.timeoutMs + 1_000 * (count - 1),
      memoryBytes: lone.limits.memoryBytes + 64 * 1024 * 1024 * (count - 1),
      maxOutputBytes: Math.max(lone.limits.maxOutputBytes, 1024 * 1024) + 64 * 1024 * count,
    },
  };
}

export interface DBatchOptions {
  /** The lone compile step (`ldc2 -unittest program.d -of=program`), whose command the batch reuses. */
  lone: (limits: ExecutionLimits, program: string) => SandboxStep;
  /** The lone run step (a batched program runs exactly so). */
  run: (limits: ExecutionLimits) => SandboxStep;
}

/** The Toolchain's `compileBatch` for D (see the header). */
export function dCompileBatch(options: DBatchOptions): (limits: ExecutionLimits, programs: readonly string[]) => BatchCompile | null {
  return (limits, programs) => {
    const members = programs.map((_, i) => i).filter((i) => refusal(programs[i]!) === null);
    if (members.length < 2) return null;
    return {
      build: async (dir) => {
        const outcomes: BatchOutcome[] = programs.map(() => ({ kind: 'alone' }));
        const lone = options.lone(limits, programs[members[0]!]!);
        let left = members;
        for (let attempt = 0; left.length >= 2; attempt++) {
          const texts = left.map((i) => programs[i]!);
          dir.write(batchFiles(texts));
          const compiled = await dir.run(batchCompileStep(lone, texts.length));
          if (compiled.sandboxError || compiled.timedOut || compiled.signal) return outcomes;
          if (compiled.exitCode === 0) {
            const binary = readFileSync(join(dir.buildDir, 'batch'));
            const built = texts.map((_, k) => programBinary(binary, k));
            if (built.some((b) => b === null)) return outcomes;
            left.forEach((i, k) => {
              const out = join(dir.buildDir, 'out', `${attempt}-${k}`);
              mkdirSync(out, { recursive: true, mode: 0o755 });
              writeFileSync(join(out, 'program'), built[k]!, { mode: 0o755 });
              writeFileSync(join(out, 'program.d'), programs[i]!, { mode: 0o644 });
              outcomes[i] = {
                kind: 'built',
                // ldc2 leaves its object beside the lone binary: the batch's stands in for it.
                files: { program: join(out, 'program'), 'program.d': join(out, 'program.d'), 'program.o': join(dir.buildDir, 'batch.o') },
                run: options.run(limits),
                compileMs: compiled.durationMs / texts.length,
              };
            });
            return outcomes;
          }
          // Which programs failed: the same sources, each named by its position, checked (no code generated).
          dir.write(batchFiles(texts, true));
          const checked = await dir.run(batchCompileStep(lone, texts.length, true));
          if (checked.sandboxError || checked.timedOut || checked.signal) return outcomes;
          const blamed = blameLdc(`${checked.stderr}\n${checked.stdout}`, texts.length);
          if (!blamed) return outcomes;
          left = left.filter((_, k) => !blamed.includes(k));
        }
        return outcomes;
      },
    };
  };
}
