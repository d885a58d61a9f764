/**
 * docs/extending.md's TypeScript examples compile as shown: every ```ts block of it is type-checked
 * with the project's compiler options, as a file where the block says it lives. The line before
 * each block is an HTML comment `<!-- compiles as: <path> -->` (a path under the project: the
 * block's relative imports resolve from there); the block is given to the compiler at a path
 * beside it (`<path>.doc-example-<n>.ts`, in memory: nothing is written), and may add a family id
 * to FAMILY_IDS with `<!-- compiles as: <path>, with family id <id> -->`, as the doc's next step
 * does (domain/families/ids.ts, also in memory). A block without the comment, or with a type error,
 * fails naming the block's line in extending.md.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.join(import.meta.dirname, '..', '..');
const DOC = path.join(ROOT, 'docs', 'extending.md');

interface Example {
  /** 1-based line of the block's opening fence in extending.md. */
  line: number;
  code: string;
  /** Where the block says it lives (relative to the project), or undefined when it does not say. */
  livesAt: string | undefined;
  familyId: string | undefined;
}

const DIRECTIVE = /^<!--\s*compiles as:\s*([^\s,]+)(?:,\s*with family id\s+([\w-]+))?\s*-->$/;

/** The ```ts blocks of the markdown text, each with the directive on the line before it. */
function examplesOf(markdown: string): Example[] {
  const lines = markdown.split('\n');
  const examples: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(ts|typescript)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && lines[j]!.trim() !== '```'; j++)
      body.push(lines[j]!.startsWith(indent) ? lines[j]!.slice(indent.length) : lines[j]!);
    let before = i - 1;
    while (before >= 0 && lines[before]!.trim() === '') before--;
    const directive = before >= 0 ? DIRECTIVE.exec(lines[before]!.trim()) : null;
    examples.push({ line: i + 1, code: body.join('\n') + '\n', livesAt: directive?.[1], familyId: directive?.[2] });
    i = j;
  }
  return examples;
}

function compilerOptions(): ts.CompilerOptions {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    path.join(ROOT, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!parsed) throw new Error('tsconfig.json: not readable');
  return { ...parsed.options, noEmit: true };
}

/** Type errors of the examples, each as `extending.md:<line>: TS<code>: <message> (block line <n>)`. */
function typeErrors(examples: readonly Example[]): string[] {
  const options = compilerOptions();
  const files = new Map<string, { text: string; example?: Example }>();
  for (const [n, example] of examples.entries()) {
    if (!example.livesAt) continue;
    files.set(path.join(ROOT, `${example.livesAt.replace(/\.ts$/, '')}.doc-example-${n + 1}.ts`), { text: example.code, example });
    if (example.familyId) {
      const idsFile = path.join(ROOT, 'domain', 'families', 'ids.ts');
      const ids = readFileSync(idsFile, 'utf8');
      const patched = ids.replace(/(export const FAMILY_IDS = \[)/, `$1\n  '${example.familyId}',`);
      if (patched === ids) throw new Error('domain/families/ids.ts: no `export const FAMILY_IDS = [` to add the example family id to');
      files.set(idsFile, { text: patched });
    }
  }
  const host = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (name) => files.has(path.resolve(name)) || fileExists.call(host, name);
  host.readFile = (name) => files.get(path.resolve(name))?.text ?? readFile.call(host, name);
  host.getSourceFile = (name, language, onError, shouldCreate) => {
    const file = files.get(path.resolve(name));
    return file ? ts.createSourceFile(name, file.text, language, true) : getSourceFile.call(host, name, language, onError, shouldCreate);
  };
  const roots = [...files].filter(([, f]) => f.example).map(([name]) => name);
  const program = ts.createProgram({ rootNames: roots, options, host });
  const errors: string[] = [];
  for (const name of roots) {
    const example = files.get(name)!.example!;
    const source = program.getSourceFile(name)!;
    for (const d of [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]) {
      const blockLine = d.start === undefined ? 0 : source.getLineAndCharacterOfPosition(d.start).line + 1;
      errors.push(
        `extending.md:${example.line + blockLine}: TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')} (line ${blockLine} of the block at line ${example.line})`,
      );
    }
  }
  return errors;
}

describe("docs/extending.md's TypeScript examples", () => {
  const examples = examplesOf(readFileSync(DOC, 'utf8'));

  it('has examples, and each says where it lives', () => {
    expect(examples.length).toBeGreaterThan(0);
    expect(
      examples
        .filter((e) => !e.livesAt)
        .map((e) => `extending.md:${e.line}: a \`\`\`ts block without <!-- compiles as: <path> --> before it`),
    ).toEqual([]);
  });

  it('each compiles as shown, where it says it lives', () => {
    expect(typeErrors(examples)).toEqual([]);
  }, 180_000);

  it('a block that does not compile is named with its line (the check can fail)', () => {
    const broken = examplesOf('<!-- compiles as: domain/languages/kt/index.ts -->\n```ts\nexport const n: number = "one";\n```\n');
    expect(typeErrors(broken)).toEqual([
      "extending.md:3: TS2322: Type 'string' is not assignable to type 'number'. (line 1 of the block at line 2)",
    ]);
  }, 180_000);
});
