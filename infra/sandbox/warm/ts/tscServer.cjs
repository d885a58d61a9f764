'use strict';
/**
 * A warm `tsc --target esnext FILE`: type-checks and emits one program per request in this
 * long-lived Node process, with the outcome `tsc` would give (MultiPL-E's eval_ts runs
 * `tsc --target esnext` and calls any non-zero exit a SyntaxError; tsc exits non-zero whenever a
 * diagnostic is reported, type errors included, so this server type-checks too: transpile-only
 * would pass programs that MultiPL-E fails).
 *
 * What is warm: TypeScript's own code (loaded and JIT-compiled once), and the parsed and bound
 * default library files (lib.esnext.d.ts and the files it references), which every program
 * shares and which are most of a cold tsc's work. Each program still gets a program and a checker
 * of its own, built with the options tsc derives from the same command line.
 *
 * Runs in the jail (jail.ts), started with the path of the typescript package; protocol: one JSON
 * request per line on stdin `{"id", "file"}`, one JSON answer per line on stdout
 * `{"id", "ok", "diagnostics"}`; the emitted `.js` is written beside the `.ts`, as tsc does.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');
const ts = require(process.argv[2]);
/** Where the library's check is kept between runs (optional: warmToolchains.ts mounts it read-write). */
const keptDir = process.argv[3];

const libCache = new Map();
const parsed = ts.parseCommandLine(['--target', 'esnext', '/job/placeholder.ts']);
const options = parsed.options;
const baseHost = ts.createCompilerHost(options);
const libDir = ts.getDirectoryPath(ts.normalizePath(ts.getDefaultLibFilePath(options)));
const host = {
  ...baseHost,
  getSourceFile(fileName, languageVersionOrOptions, onError, shouldCreate) {
    const isLib = ts.normalizePath(fileName).startsWith(libDir + '/');
    if (!isLib) return baseHost.getSourceFile(fileName, languageVersionOrOptions, onError, shouldCreate);
    const key = fileName + '|' + JSON.stringify(languageVersionOrOptions);
    let file = libCache.get(key);
    if (!file) {
      file = baseHost.getSourceFile(fileName, languageVersionOrOptions, onError, shouldCreate);
      if (file) libCache.set(key, file);
    }
    return file;
  },
};

/**
 * The default library's own diagnostics: tsc checks every file of the program, the library's
 * .d.ts files included (skipLibCheck is off). They are the same for every program unless the
 * program declares a global the library also declares (a MultiPL-E program is a script: its
 * top-level declarations are globals, merged with the library's): a program that does not is
 * checked alone and the library's diagnostics, computed once, are added; a program that does gets
 * the whole check, as tsc would do.
 */
let libDiagnostics;
let libGlobals;
function topLevelNames(sourceFile) {
  const names = [];
  for (const statement of sourceFile.statements) {
    if (ts.isVariableStatement(statement)) {
      for (const d of statement.declarationList.declarations)
        if (ts.isIdentifier(d.name)) names.push(d.name.text);
        else names.push('*');
    } else if (ts.isModuleDeclaration(statement)) {
      names.push(ts.isIdentifier(statement.name) ? statement.name.text : '*');
      if (statement.flags & ts.NodeFlags.GlobalAugmentation) names.push('*');
    } else if (statement.name && ts.isIdentifier(statement.name)) names.push(statement.name.text);
  }
  return names;
}

let previous;
function check(file) {
  const program = ts.createProgram({ rootNames: [file], options, host, oldProgram: previous });
  previous = program;
  // The diagnostics tsc's emitFilesAndReportErrors collects, in its order and with its short-cuts.
  const all = [...program.getConfigFileParsingDiagnostics()];
  const configCount = all.length;
  all.push(...program.getSyntacticDiagnostics());
  if (all.length === configCount) {
    all.push(...program.getOptionsDiagnostics());
    all.push(...program.getGlobalDiagnostics());
    if (all.length === configCount) {
      const root = program.getSourceFile(file);
      const libFiles = program.getSourceFiles().filter((f) => f !== root);
      if (!libGlobals) {
        libGlobals = new Set();
        for (const f of libFiles) for (const name of f.locals ? f.locals.keys() : []) libGlobals.add(name);
      }
      const isolated =
        root &&
        !ts.isExternalModule(root) &&
        libFiles.every((f) => program.isSourceFileDefaultLibrary(f)) &&
        !topLevelNames(root).some((n) => n === '*' || libGlobals.has(n));
      if (isolated) {
        if (!libDiagnostics) libDiagnostics = libFiles.flatMap((f) => program.getSemanticDiagnostics(f));
        all.push(...libDiagnostics, ...program.getSemanticDiagnostics(root));
      } else all.push(...program.getSemanticDiagnostics());
    }
  }
  // Only the program's own file emits (the library's .d.ts files emit nothing); emit() without a
  // file would ask the checker about every file, the library's included, each time.
  const emitted = program.emit(program.getSourceFile(file));
  all.push(...emitted.diagnostics);
  const diagnostics = ts.sortAndDeduplicateDiagnostics(all);
  const text = ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => '/job',
    getNewLine: () => '\n',
  });
  return { ok: diagnostics.length === 0, diagnostics: text };
}

const lines = readline.createInterface({ input: process.stdin });
lines.on('line', (line) => {
  let answer;
  try {
    const request = JSON.parse(line);
    try {
      answer = { id: request.id, ...check(request.file) };
    } catch (error) {
      answer = { id: request.id, ok: false, diagnostics: 'tsc crashed: ' + (error && error.stack ? error.stack : String(error)) };
    }
  } catch {
    answer = { id: null, ok: false, diagnostics: 'bad request: ' + line };
  }
  process.stdout.write(JSON.stringify(answer) + '\n');
});
/**
 * The library's part of the first program's work, done before any program arrives (the runner
 * starts this server while its caller still reads the rows): an empty script is as isolated as a
 * program can be, so the library's files are parsed and bound, their globals listed and their
 * diagnostics computed exactly as the first isolated program would. Requests wait in the pipe
 * meanwhile, and the first one's clock runs as it did when that program did this work itself.
 */
function warmUp() {
  const name = '/explora-warm-up/empty.ts';
  const warmHost = {
    ...host,
    fileExists: (f) => f === name || host.fileExists(f),
    getSourceFile: (f, languageVersionOrOptions, ...rest) =>
      f === name ? ts.createSourceFile(f, '', languageVersionOrOptions) : host.getSourceFile(f, languageVersionOrOptions, ...rest),
  };
  const program = ts.createProgram({ rootNames: [name], options, host: warmHost });
  const root = program.getSourceFile(name);
  const libFiles = program.getSourceFiles().filter((f) => f !== root);
  const clean =
    root &&
    program.getConfigFileParsingDiagnostics().length === 0 &&
    program.getSyntacticDiagnostics().length === 0 &&
    program.getOptionsDiagnostics().length === 0 &&
    program.getGlobalDiagnostics().length === 0 &&
    libFiles.every((f) => program.isSourceFileDefaultLibrary(f));
  // Anything unexpected: leave it all to the first program, as before.
  if (!clean) return;
  libGlobals = new Set();
  for (const f of libFiles) for (const n of f.locals ? f.locals.keys() : []) libGlobals.add(n);
  // The library's diagnostics depend on TypeScript's version and options alone (its files are the
  // package's): an earlier run's are reused rather than the whole library checked again.
  const what = { libraryCheck: 1, typescript: ts.version, options, libFiles: libFiles.map((f) => f.fileName) };
  const kept = readKept(what, program);
  if (kept) {
    libDiagnostics = kept;
    return;
  }
  libDiagnostics = libFiles.flatMap((f) => program.getSemanticDiagnostics(f));
  keep(what, libDiagnostics);
}

/**
 * The kept record of `what` (the same layout as infra/sandbox/process/toolchains/keptBetweenRuns.ts:
 * a file named by a hash of `what`, holding `what` and the value), its diagnostics tied to this
 * program's library files; undefined when there is none, or it is unreadable, partial or made for
 * anything else.
 */
function keptFile(what) {
  return path.join(keptDir, crypto.createHash('sha256').update(JSON.stringify(what)).digest('hex').slice(0, 24) + '.json');
}
function readKept(what, program) {
  if (!keptDir) return undefined;
  try {
    const record = JSON.parse(fs.readFileSync(keptFile(what), 'utf8'));
    if (JSON.stringify(record.what) !== JSON.stringify(what)) return undefined;
    const kept = record.value && record.value.diagnostics;
    if (!Array.isArray(kept)) return undefined;
    const diagnostics = [];
    for (const d of kept) {
      if (typeof d !== 'object' || d === null || typeof d.code !== 'number' || typeof d.category !== 'number') return undefined;
      const file = d.fileName === null ? undefined : program.getSourceFile(d.fileName);
      if (d.fileName !== null && !file) return undefined;
      if (typeof d.messageText !== 'string' && (typeof d.messageText !== 'object' || d.messageText === null)) return undefined;
      diagnostics.push({ file, start: d.start, length: d.length, messageText: d.messageText, category: d.category, code: d.code });
    }
    return diagnostics;
  } catch {
    return undefined;
  }
}
/** Keeps the diagnostics for `what`: a temporary file renamed into place (concurrent runs each replace a whole file). */
function keep(what, diagnostics) {
  if (!keptDir) return;
  const file = keptFile(what);
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  const value = {
    diagnostics: diagnostics.map((d) => ({
      fileName: d.file ? d.file.fileName : null,
      start: d.start,
      length: d.length,
      messageText: d.messageText,
      category: d.category,
      code: d.code,
    })),
  };
  try {
    fs.writeFileSync(tmp, JSON.stringify({ what, value }) + '\n');
    fs.renameSync(tmp, file);
  } catch {
    try {
      fs.unlinkSync(tmp);
    } catch {
      // never written
    }
  }
}

process.stdout.write(JSON.stringify({ ready: true, version: ts.version }) + '\n');
try {
  warmUp();
} catch {
  libGlobals = undefined;
  libDiagnostics = undefined;
}
