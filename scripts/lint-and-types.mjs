// `node scripts/lint-and-types.mjs`: `tsc --noEmit` and `eslint .` in one process, sharing one
// TypeScript program (scripts/static-checks.sh runs it). ESLint's typed rules build the same program
// tsc builds, from the same tsconfig.json; built once, the two cost about as much as ESLint alone
// (docs/contributing.md has the figures). The findings and the exit status are those of the two
// commands: tsc's diagnostics first, then ESLint's in its default format.
import process from 'node:process';
import console from 'node:console';
import { fileURLToPath, URL } from 'node:url';
import ts from 'typescript';
import { ESLint } from 'eslint';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsconfig = `${root}tsconfig.json`;

const parsed = ts.getParsedCommandLineOfConfigFile(tsconfig, undefined, {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (d) => {
    console.error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    process.exit(2);
  },
});
if (!parsed) process.exit(2);
const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options, projectReferences: parsed.projectReferences });

const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' };
const diagnostics = ts.getPreEmitDiagnostics(program);
if (diagnostics.length > 0) {
  const format = process.stdout.isTTY ? ts.formatDiagnosticsWithColorAndContext : ts.formatDiagnostics;
  console.log(format(diagnostics, host));
  console.log(`tsc: ${diagnostics.length} error(s)`);
}

// The config's typed block asks for the project service; handed the program instead, the parser
// reads every .ts file from it (all of them are in tsconfig.json's include: docs/contributing.md).
const eslint = new ESLint({
  cwd: root,
  overrideConfig: { files: ['**/*.ts'], languageOptions: { parserOptions: { projectService: false, programs: [program] } } },
});
const results = await eslint.lintFiles(['.']);
const formatter = await eslint.loadFormatter('stylish');
const lintOutput = await formatter.format(results);
if (lintOutput) console.log(lintOutput);
const lintErrors = results.reduce((sum, r) => sum + r.errorCount + r.fatalErrorCount, 0);

process.exitCode = diagnostics.length > 0 || lintErrors > 0 ? 1 : 0;
