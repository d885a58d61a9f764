/**
 * A tree-sitter parser for Python (tree-sitter-python's wasm, as its npm package ships it, run by
 * web-tree-sitter): what domain/llm/evalplusSanitize.ts parses with. Loaded once per process.
 */
import { createRequire } from 'node:module';
import { Language, Parser } from 'web-tree-sitter';

let loading: Promise<Parser> | undefined;

export function loadPythonParser(): Promise<Parser> {
  loading ??= (async () => {
    await Parser.init();
    const wasm = createRequire(import.meta.url).resolve('tree-sitter-python/tree-sitter-python.wasm');
    const parser = new Parser();
    parser.setLanguage(await Language.load(wasm));
    return parser;
  })();
  return loading;
}
