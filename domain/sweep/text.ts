/**
 * Reading the text of a config file (JSON or YAML) into a plain value, with syntax errors that give
 * a line and column. Duplicate keys are errors in both formats (JSON.parse would keep the last one
 * silently, hiding a typo-level mistake).
 */
import YAML from 'yaml';

export interface TextIssue {
  line?: number;
  column?: number;
  message: string;
}

export type TextParseResult = { ok: true; value: unknown } | { ok: false; issues: TextIssue[] };

export type ConfigFormat = 'json' | 'yaml';

/** By extension (case-insensitive): `.json` → JSON, `.yaml` / `.yml` → YAML, anything else: null. */
export function configFormatOf(fileName: string): ConfigFormat | null {
  const lower = fileName.toLowerCase();
  if (lower.endsWith('.json')) return 'json';
  if (lower.endsWith('.yaml') || lower.endsWith('.yml')) return 'yaml';
  return null;
}

export function parseConfigText(text: string, format: ConfigFormat): TextParseResult {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  return format === 'json' ? parseJsonText(source) : parseYamlText(source);
}

function parseYamlText(text: string): TextParseResult {
  const doc = YAML.parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  // Warnings (e.g. an unknown !tag, whose value would silently become a string) count as errors too.
  const problems = [...doc.errors, ...doc.warnings];
  if (problems.length > 0) {
    return {
      ok: false,
      issues: problems.map((e) => {
        const pos = e.linePos?.[0];
        const message = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
        return pos ? { line: pos.line, column: pos.col, message } : { message };
      }),
    };
  }
  try {
    return { ok: true, value: doc.toJS({ maxAliasCount: 100 }) };
  } catch (error) {
    // e.g. an alias to an anchor defined later, or an alias explosion
    return { ok: false, issues: [{ message: (error as Error).message }] };
  }
}

function parseJsonText(text: string): TextParseResult {
  const problem = jsonSyntaxProblem(text);
  if (problem) {
    const { line, column } = lineColumn(text, problem.offset);
    return { ok: false, issues: [{ line, column, message: problem.message }] };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    // Not expected once the scanner accepted the text; kept so a disagreement is still an error.
    return { ok: false, issues: [{ message: (error as Error).message }] };
  }
}

/** 1-based line and column (in UTF-16 units) of an offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * A strict JSON (RFC 8259) syntax check that says where the text goes wrong, which Node's
 * JSON.parse messages do not always do, and that refuses duplicate keys. Returns null when valid.
 */
export function jsonSyntaxProblem(text: string): { offset: number; message: string } | null {
  let pos = 0;

  class Stop extends Error {
    constructor(
      readonly offset: number,
      message: string,
    ) {
      super(message);
    }
  }
  const fail = (message: string, at = pos): never => {
    throw new Stop(at, message);
  };
  const describe = (at: number): string => (at >= text.length ? 'end of input' : JSON.stringify(text[at]));
  const skipWs = () => {
    while (pos < text.length && ' \t\n\r'.includes(text[pos]!)) pos++;
  };
  const expect = (ch: string, what: string) => {
    if (text[pos] !== ch) fail(`expected ${what}, found ${describe(pos)}`);
    pos++;
  };

  const parseString = (): string => {
    const start = pos;
    expect('"', 'a string');
    let out = '';
    for (;;) {
      if (pos >= text.length) fail('unterminated string', start);
      const ch = text[pos]!;
      if (ch === '"') {
        pos++;
        return out;
      }
      if (ch < ' ') fail('control character in string (escape it)');
      if (ch === '\\') {
        const esc = text[pos + 1];
        if (esc !== undefined && '"\\/bfnrt'.includes(esc)) {
          out += esc;
          pos += 2;
        } else if (esc === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(pos + 2, pos + 6))) {
          out += String.fromCharCode(parseInt(text.slice(pos + 2, pos + 6), 16));
          pos += 6;
        } else {
          fail('invalid escape in string');
        }
        continue;
      }
      out += ch;
      pos++;
    }
  };

  const parseNumber = () => {
    const match = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(pos));
    if (!match || match[0] === '' || match[0] === '-') fail(`invalid number`);
    pos += match![0].length;
  };

  const parseValue = (depth: number): void => {
    if (depth > 512) fail('nesting too deep');
    skipWs();
    const ch = text[pos];
    if (ch === '{') {
      pos++;
      const keys = new Set<string>();
      skipWs();
      if (text[pos] === '}') {
        pos++;
        return;
      }
      for (;;) {
        skipWs();
        const keyAt = pos;
        if (text[pos] !== '"') fail(`expected a property name in double quotes, found ${describe(pos)}`);
        const key = parseString();
        if (keys.has(key)) fail(`duplicate key ${JSON.stringify(key)}`, keyAt);
        keys.add(key);
        skipWs();
        expect(':', "':' after a property name");
        parseValue(depth + 1);
        skipWs();
        if (text[pos] === ',') {
          pos++;
          skipWs();
          if (text[pos] === '}') fail("trailing comma before '}'");
          continue;
        }
        expect('}', "',' or '}'");
        return;
      }
    }
    if (ch === '[') {
      pos++;
      skipWs();
      if (text[pos] === ']') {
        pos++;
        return;
      }
      for (;;) {
        parseValue(depth + 1);
        skipWs();
        if (text[pos] === ',') {
          pos++;
          skipWs();
          if (text[pos] === ']') fail("trailing comma before ']'");
          continue;
        }
        expect(']', "',' or ']'");
        return;
      }
    }
    if (ch === '"') {
      parseString();
      return;
    }
    if (ch === '-' || (ch !== undefined && ch >= '0' && ch <= '9')) {
      parseNumber();
      return;
    }
    for (const literal of ['true', 'false', 'null']) {
      if (text.startsWith(literal, pos)) {
        pos += literal.length;
        return;
      }
    }
    fail(pos >= text.length ? 'unexpected end of input, expected a value' : `unexpected ${describe(pos)}, expected a value`);
  };

  try {
    parseValue(0);
    skipWs();
    if (pos < text.length) fail(`unexpected ${describe(pos)} after the end of the JSON value`);
    return null;
  } catch (error) {
    if (error instanceof Stop) return { offset: error.offset, message: error.message };
    throw error;
  }
}
