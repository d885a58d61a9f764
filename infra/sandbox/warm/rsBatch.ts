/**
 * Rust: several programs per rustc call (the process runner's `compileBatch`, contract.ts).
 * rustc's own start (loading its driver library) and the link cost about as much for ten
 * MultiPL-E programs as for one, so a batch compiles them as one crate and each runs alone.
 *
 * The crate (the batch's build directory):
 *   p<i>/program.rs   program i, byte for byte (a leading `#![allow(...)]` line blanked, see below);
 *   batch.rs          the root: line i+1 is `mod __explora_p<i> { include!("p<i>/program.rs"); pub fn
 *                     __explora_entry() -> ExitCode { Termination::report(main()) } }`, then a
 *                     `main` that calls the entry of the program whose index is patched into a
 *                     static of the binary (a marker, then 4 bytes).
 * compiled with the lone step's own command (edition, flags) plus `--crate-name program` (the lone
 * crate's name), `--remap-path-prefix p<i>/=` with `--remap-path-scope=object` (what the binary
 * embeds, panic locations and `file!()`, says `program.rs`, as alone; diagnostics keep `p<i>/`, so
 * they name the program) and JSON diagnostics (read by `blame`).
 * Each program's run directory is what its own compile leaves: `program.rs` (its text) and
 * `program`, a copy of the batch binary with its index patched in. Its run step is the lone one:
 * same argv (`/build/program`, no argument), same environment, same limits. `main`'s result is
 * reported through `Termination::report`, as the runtime does for a crate's own `main`.
 * A failed batch compile is nobody's outcome: the programs its JSON diagnostics point into are
 * answered `alone` (the runner compiles each on its own: its own diagnostics, its own
 * compile_error) and the rest is compiled again as a batch (strictly fewer, so this ends); a
 * timeout, a signal, a sandbox failure or an error pointing nowhere (a link error) answers every
 * remaining program `alone`.
 *
 * What a module inside another crate sees differently from a crate root, and how each is kept out
 * (`refusal` names it; the program is answered `alone` without joining the batch):
 *   - `crate::`, `super::`, `$crate`: they would name the batch's root: the words refused;
 *   - inner attributes (`#![...]`, `//!`) are not allowed in an `include!`d file: a leading
 *     `#![allow(...)]` line (lints only; an allow can only silence) is moved to the module's head
 *     and blanked in place (line and column numbers unchanged); any other is refused (crate-level
 *     attributes: `no_std`, `recursion_limit`...);
 *   - attributes other than the everyday ones (derive, allow, warn, inline, cfg, test, doc, repr,
 *     must_use...): refused, so symbol attributes (`no_mangle`, `export_name`, `used`, `link`...),
 *     `deny`/`forbid`/`expect`, `path`, `cfg_attr`, `global_allocator`, `panic_handler` never
 *     meet another program's;
 *   - `extern` (crates, blocks, ABIs), `mod x;` (a file module), `include!`/`include_str!`/
 *     `include_bytes!` (paths relative to the including file), `module_path!`, `type_name`,
 *     backtraces (they print the module path), inline and global `asm!`: refused;
 *   - `main`: exactly one `fn main() {` or `fn main() -> T {` (optionally `pub`) at a line's start,
 *     no attribute line above it, no `where`, no other item named main: a `const`, `unsafe`,
 *     `async`, generic, attributed or imported (`use m::main`) `main`, which the crate root
 *     rejects, is refused;
 *   - statics: every program of a batch maps the others' statics too (address space, RLIMIT_AS):
 *     a batch binary whose loaded image exceeds MAX_IMAGE_BYTES is not used (every program then
 *     compiles alone), so a program sees at most a few MB more mapped than alone;
 *   - the stack: `main` runs two frames deeper (the batch's main and the entry), a few hundred bytes
 *     of the main thread's 8 MB.
 * A program can read its binary, which holds the compiled code of the other programs of its batch
 * (what the runner had at hand at once: one `runMany` call's, or `run` calls queued together,
 * which may come from different shards or sweeps a worker serves); it cannot change them, nor see
 * their output or results (the build directory is read-only to runs).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExecutionLimits } from '../../../domain/execution/types.js';
import type { BatchCompile, BatchOutcome, SandboxStep } from '../process/contract.js';
import { probeVersionSync } from '../process/toolchains/common.js';

/** Largest loaded image (all PT_LOAD segments) of a usable batch binary. */
export const MAX_IMAGE_BYTES = 8 * 1024 * 1024;

const ENTRY_SLOTS = 4;
const MARKER_PREFIX = 'EXPLORA-BATCH-ENTRY-';

/** Attributes a program may carry into a batch: none changes linkage, lint levels upward, or paths. */
const PLAIN_ATTRIBUTES = new Set([
  'derive',
  'allow',
  'warn',
  'inline',
  'cold',
  'cfg',
  'test',
  'doc',
  'repr',
  'must_use',
  'non_exhaustive',
  'track_caller',
  'deprecated',
  'rustfmt::skip',
  'automatically_derived',
]);

const REFUSED_WORDS =
  /\b(crate|super|extern|include|include_str|include_bytes|module_path|type_name|type_name_of_val|asm|global_asm|naked_asm)\b/;
const FILE_MODULE = /\bmod\s+[A-Za-z_]\w*\s*;/;
/** A `//` comment that is not a doc comment (`///` attaches to the next item, `//!` is an inner attribute). */
const PLAIN_COMMENT = /^\s*\/\/(?!\/(?!\/)|!)/;
const LEADING_ALLOW = /^[ \t]*#!\[allow\([\w\s,:]*\)\][ \t]*$/;
const MAIN = /^(?:pub[ \t]+)?fn[ \t]+main[ \t]*\([ \t]*\)[ \t]*(->[^{;]*)?\{/gm;
const OTHER_MAIN = /\b(?:static|const|let|struct|enum|union|type|trait|mod|macro_rules!|as)\s+(?:mut\s+)?main\b|\buse\b[^;]*\bmain\b/;

/** A program as it goes into the batch: its text with leading allow lines blanked, and those lines. */
export function hoistLeadingAllows(program: string): { text: string; allows: string[] } {
  const lines = program.split('\n');
  const allows: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (LEADING_ALLOW.test(line)) {
      allows.push(line.trim());
      lines[i] = ' '.repeat(line.length);
    } else if (line.trim() !== '' && !PLAIN_COMMENT.test(line)) break;
  }
  return { text: lines.join('\n'), allows };
}

/** Why a program must compile alone, or null when it may share a rustc call. */
export function refusal(program: string): string | null {
  const { text } = hoistLeadingAllows(program);
  if (/#!|\/\/!|\/\*!/.test(text)) return 'an inner attribute';
  const word = REFUSED_WORDS.exec(text);
  if (word) return `\`${word[1]}\``;
  // A backtrace names the module path (program::__explora_p3::main).
  if (/backtrace/i.test(text)) return 'a backtrace';
  if (FILE_MODULE.test(text)) return 'a file module';
  for (const m of text.matchAll(/#\s*\[\s*([A-Za-z_][\w:]*)/g)) if (!PLAIN_ATTRIBUTES.has(m[1]!)) return `#[${m[1]}]`;
  const mains = [...text.matchAll(MAIN)];
  if (mains.length !== 1) return mains.length === 0 ? 'no plain `fn main()`' : 'more than one `fn main()`';
  if (/\bwhere\b/.test(mains[0]![1] ?? '')) return 'a `where` on main';
  const before = text.slice(0, mains[0]!.index).trimEnd();
  if (before.endsWith(']')) return 'an attribute on main';
  if (OTHER_MAIN.test(text)) return 'another item named main';
  return null;
}

function markerOf(programs: readonly string[]): string {
  const hash = createHash('sha256');
  for (const p of programs) hash.update(p).update('\0');
  return MARKER_PREFIX + hash.digest('hex').slice(0, 12);
}

/** The crate root: line i+1 holds program i's module (blame reads lines of batch.rs as indices). */
export function batchRoot(programs: readonly string[]): string {
  const modules = programs.map((program, i) => {
    const { allows } = hoistLeadingAllows(program);
    return `mod __explora_p${i} { ${allows.join(' ')}${allows.length ? ' ' : ''}include!("p${i}/program.rs"); pub fn __explora_entry() -> ::std::process::ExitCode { ::std::process::Termination::report(main()) } }`;
  });
  const arms = programs.map((_, i) => `        ${i} => __explora_p${i}::__explora_entry(),`);
  const marker = markerOf(programs);
  return [
    ...modules,
    `static __EXPLORA_ENTRY: [u8; ${marker.length + ENTRY_SLOTS}] = *b"${marker}${'\\xff'.repeat(ENTRY_SLOTS)}";`,
    'fn main() -> ::std::process::ExitCode {',
    '    // Volatile: the index is patched into the binary after the compile.',
    '    let entry = unsafe { ::std::ptr::read_volatile(&__EXPLORA_ENTRY) };',
    `    let at = ${marker.length};`,
    '    match u32::from_le_bytes([entry[at], entry[at + 1], entry[at + 2], entry[at + 3]]) {',
    ...arms,
    '        _ => ::std::process::ExitCode::from(127),',
    '    }',
    '}',
    '',
  ].join('\n');
}

/** ELF program header types: a loadable segment, and the thread-local storage template (allocated per thread). */
export const PT_LOAD = 1;
export const PT_TLS = 7;

/** Sum of the sizes in memory of an ELF64 little-endian file's segments of these types (PT_LOAD by default), or null. */
export function loadedImageBytes(elf: Buffer, types: readonly number[] = [PT_LOAD]): number | null {
  if (elf.length < 64 || elf.readUInt32BE(0) !== 0x7f454c46 || elf[4] !== 2 || elf[5] !== 1) return null;
  const phoff = Number(elf.readBigUInt64LE(0x20));
  const phentsize = elf.readUInt16LE(0x36);
  const phnum = elf.readUInt16LE(0x38);
  let total = 0;
  for (let i = 0; i < phnum; i++) {
    const at = phoff + i * phentsize;
    if (at + 0x30 > elf.length) return null;
    if (types.includes(elf.readUInt32LE(at))) total += Number(elf.readBigUInt64LE(at + 0x28));
  }
  return total;
}

interface SpanJson {
  file_name?: string;
  line_start?: number;
  expansion?: { span?: SpanJson } | null;
}

/** Program indices a span (or the macro call it was expanded from) lies in. */
function spanPrograms(span: SpanJson | undefined, count: number, into: Set<number>): void {
  for (let s = span, depth = 0; s && depth < 32; s = s.expansion?.span ?? undefined, depth++) {
    const own = /^p(\d+)\/program\.rs$/.exec(s.file_name ?? '');
    if (own && Number(own[1]) < count) into.add(Number(own[1]));
    if (s.file_name === 'batch.rs' && s.line_start && s.line_start <= count) into.add(s.line_start - 1);
  }
}

/** The programs rustc's JSON diagnostics blame; null when an error names none of them (a link error). */
export function blameRustc(stderr: string, count: number): number[] | null {
  const blamed = new Set<number>();
  for (const line of stderr.split('\n')) {
    if (!line.startsWith('{')) continue;
    let diagnostic: { $message_type?: string; level?: string; message?: string; spans?: SpanJson[] };
    try {
      diagnostic = JSON.parse(line);
    } catch {
      continue; // a line cut by the output cap
    }
    if (diagnostic.$message_type !== 'diagnostic' || !diagnostic.level?.startsWith('error')) continue;
    if (/^aborting due to/.test(diagnostic.message ?? '')) continue;
    const own = new Set<number>();
    for (const span of diagnostic.spans ?? []) spanPrograms(span, count, own);
    if (own.size === 0) return null;
    for (const i of own) blamed.add(i);
  }
  return blamed.size ? [...blamed].sort((a, b) => a - b) : null;
}

/** `--remap-path-scope` is stable since Rust 1.87; an older rustc compiles every program alone. */
function remapScopeSupported(rustc: string): boolean {
  // Asked once per process; a rustc too old for the flag fails the probe (not kept: asked again by the next run).
  return probeVersionSync(
    rustc,
    ['--remap-path-scope=object', '--print', 'sysroot'],
    'rustc',
    'install Rust',
    {},
    { keepBetweenRuns: true },
  ).ok;
}

export interface RustBatchOptions {
  /** The lone compile step (`rustc ... -o program program.rs ...`), whose command the batch reuses. */
  lone: (limits: ExecutionLimits, program: string) => SandboxStep;
  /** The lone run step (a batched program runs exactly so). */
  run: (limits: ExecutionLimits) => SandboxStep;
  /** rustc on the host (for the version probe). */
  hostRustc: string;
}

/** The batch's compile step: the lone command on batch.rs, limits scaled for the batch. */
export function batchCompileStep(lone: SandboxStep, count: number): SandboxStep {
  const argv = lone.argv.map((arg, i) =>
    arg === 'program.rs' ? 'batch.rs' : arg === 'program' && lone.argv[i - 1] === '-o' ? 'batch' : arg,
  );
  if (!argv.includes('batch.rs') || !argv.includes('batch'))
    throw new Error(`the Rust batch cannot reuse the lone compile command ${lone.argv.join(' ')}`);
  return {
    ...lone,
    argv: [
      ...argv,
      '--crate-name',
      'program',
      '--remap-path-scope=object',
      ...Array.from({ length: count }, (_, i) => ['--remap-path-prefix', `p${i}/=`]).flat(),
      '--error-format=json',
    ],
    limits: {
      ...lone.limits,
      // rustc's work grows with the batch; a hostile program's compile-time bomb wastes one
      // batch's time, then every program compiles alone under the lone limits.
      timeoutMs: lone.limits.timeoutMs + 2_000 * (count - 1),
      memoryBytes: lone.limits.memoryBytes + 128 * 1024 * 1024 * (count - 1),
      // JSON diagnostics carry each error's explanation: room enough for blame to read them all.
      maxOutputBytes: Math.max(lone.limits.maxOutputBytes, 1024 * 1024) + 256 * 1024 * count,
    },
  };
}

/** The batch build directory's files: the root and each program under p<i>/. */
export function batchFiles(programs: readonly string[]): Record<string, string> {
  const files: Record<string, string> = { 'batch.rs': batchRoot(programs) };
  programs.forEach((program, i) => (files[`p${i}/program.rs`] = hoistLeadingAllows(program).text));
  return files;
}

/** Program `index`'s binary: the batch's with its index patched in; null if the batch binary is not usable. */
export function programBinary(batchBinary: Buffer, index: number, programs: readonly string[]): Buffer | null {
  const image = loadedImageBytes(batchBinary);
  if (image === null || image > MAX_IMAGE_BYTES) return null;
  const marker = Buffer.from(markerOf(programs), 'latin1');
  const at = batchBinary.indexOf(marker);
  if (at < 0 || batchBinary.indexOf(marker, at + 1) >= 0) return null;
  const own = Buffer.from(batchBinary);
  own.writeUInt32LE(index, at + marker.length);
  return own;
}

/** The Toolchain's `compileBatch` for Rust (see the header). */
export function rsCompileBatch(options: RustBatchOptions): (limits: ExecutionLimits, programs: readonly string[]) => BatchCompile | null {
  return (limits, programs) => {
    const members = programs.map((_, i) => i).filter((i) => refusal(programs[i]!) === null);
    if (members.length < 2 || !remapScopeSupported(options.hostRustc)) return null;
    return {
      build: async (dir) => {
        const outcomes: BatchOutcome[] = programs.map(() => ({ kind: 'alone' }));
        let left = members;
        for (let attempt = 0; left.length >= 2; attempt++) {
          const texts = left.map((i) => programs[i]!);
          dir.write(batchFiles(texts));
          const compiled = await dir.run(batchCompileStep(options.lone(limits, texts[0]!), texts.length));
          if (compiled.sandboxError || compiled.timedOut || compiled.signal) return outcomes;
          if (compiled.exitCode === 0) {
            const binary = readFileSync(join(dir.buildDir, 'batch'));
            const built = texts.map((_, k) => programBinary(binary, k, texts));
            if (built.some((b) => b === null)) return outcomes;
            left.forEach((i, k) => {
              const out = join(dir.buildDir, 'out', `${attempt}-${k}`);
              mkdirSync(out, { recursive: true, mode: 0o755 });
              writeFileSync(join(out, 'program'), built[k]!, { mode: 0o755 });
              writeFileSync(join(out, 'program.rs'), programs[i]!, { mode: 0o644 });
              outcomes[i] = {
                kind: 'built',
                files: { program: join(out, 'program'), 'program.rs': join(out, 'program.rs') },
                run: options.run(limits),
                compileMs: compiled.durationMs / texts.length,
              };
            });
            return outcomes;
          }
          const blamed = blameRustc(compiled.stderr, texts.length);
          if (!blamed) return outcomes;
          left = left.filter((_, k) => !blamed.includes(k));
        }
        return outcomes;
      },
    };
  };
}
