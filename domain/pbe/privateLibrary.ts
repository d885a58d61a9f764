/**
 * The private library of a PBE World dataset generated with `library: 'private'`: a small Python
 * module, new to every model, that offers the pipeline operations under nonsense names (from the
 * dataset seed, see privateNames.ts), documented in its own words, and with calling conventions of
 * its own (replace takes the text last; strip takes its characters by keyword only), so that a model
 * cannot guess the calls from what it knows of `str` and must read the docs.
 *
 * Everything here is a pure function of the seed: the same seed gives the same module source byte
 * for byte. Changing a template, a name draw or PRIVATE_LIBRARY_VERSION changes the source, hence
 * its hash recorded in every row.
 */
import { murmur3Words } from './rng.js';
import { OPERATIONS, getOperation, type PipelineStep } from './operations.js';
import { nonsenseNames } from './privateNames.js';
import { pyRepr } from './pyrepr.js';

export const PRIVATE_LIBRARY_NAME = 'pbe-private';
export const PRIVATE_LIBRARY_VERSION = '1';

/** How one pipeline operation is offered by the module. */
interface FunctionTemplate {
  /** Parameters of the `def`, annotations included. */
  parameters: string;
  /** Arguments of a call, given the expression of the text and the step's arguments. */
  callArguments(subject: string, args: readonly string[]): string;
  /** First docstring line: what the function returns. */
  summary: string;
  /** Further docstring paragraphs (one line each, wrapped when rendered). */
  details: string[];
  /** The parameters checked to be `str`, in order. */
  checked: string[];
  /** The return expression. */
  result: string;
  /** A documented example: the step arguments and a text to apply it to. */
  example: { args: string[]; text: string };
}

const TEMPLATES: Record<string, FunctionTemplate> = {
  replace: {
    parameters: 'target: str, replacement: str, text: str',
    callArguments: (subject, [target, replacement]) => `${pyRepr(target!)}, ${pyRepr(replacement!)}, ${subject}`,
    summary: 'Return `text` with each occurrence of `target` changed into `replacement`.',
    details: [
      'Occurrences are found from left to right and never overlap; text produced by a replacement is not searched again. An empty `target` matches before every character and once at the end.',
      'The text to work on is the LAST argument: `target` and `replacement` come first.',
    ],
    checked: ['target', 'replacement', 'text'],
    result: 'text.replace(target, replacement)',
    example: { args: ['an', 'AN'], text: 'banana' },
  },
  upper: {
    parameters: 'text: str',
    callArguments: (subject) => subject,
    summary: 'Return `text` with every letter in its capital form.',
    details: ['Characters without a capital form (digits, punctuation, spaces) are kept as they are.'],
    checked: ['text'],
    result: 'text.upper()',
    example: { args: [], text: 'Hello, world 42' },
  },
  lower: {
    parameters: 'text: str',
    callArguments: (subject) => subject,
    summary: 'Return `text` with every letter in its small form.',
    details: ['Characters without a small form (digits, punctuation, spaces) are kept as they are.'],
    checked: ['text'],
    result: 'text.lower()',
    example: { args: [], text: 'Hello, WORLD 42' },
  },
  strip: {
    parameters: 'text: str, *, edge_chars: str',
    callArguments: (subject, [chars]) => `${subject}, edge_chars=${pyRepr(chars!)}`,
    summary: 'Return `text` without the characters of `edge_chars` at its start and at its end.',
    details: [
      'Characters are removed from both ends for as long as they belong to `edge_chars`; characters between two kept ones are never removed. `edge_chars` is a set of characters, not a prefix or suffix: their order and repetitions do not matter, and an empty `edge_chars` removes nothing.',
      '`edge_chars` must be passed by keyword: `edge_chars=...`.',
    ],
    checked: ['text', 'edge_chars'],
    result: 'text.strip(edge_chars)',
    example: { args: ['xy'], text: 'yxhey xyxx' },
  },
};

for (const op of OPERATIONS) {
  if (!TEMPLATES[op.name]) throw new Error(`privateLibrary: operation ${op.name} has no template in the private library`);
}

/** One function of the module, with what its documentation says. */
export interface PrivateFunction {
  /** The pipeline operation it performs (`replace`, `upper`, ...). */
  operation: string;
  name: string;
  /** `fn(a: str, ...) -> str`. */
  signature: string;
  /** The docstring's text, paragraphs joined by blank lines. */
  description: string;
  /** A call and the repr of its value, e.g. `mod.fn('an', 'AN', 'banana')  # 'bANANa'`. */
  example: string;
}

export interface PrivateLibrary {
  name: typeof PRIVATE_LIBRARY_NAME;
  version: typeof PRIVATE_LIBRARY_VERSION;
  /** The importable module name. */
  module: string;
  /** The module's Python source. */
  source: string;
  /** privateSourceHash(source). */
  source_hash: string;
  /** In OPERATIONS order. */
  functions: PrivateFunction[];
}

const INDENT = '    ';
const DOC_WIDTH = 76;

/** Greedy word wrap (no word is ever split). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines;
}

function docstring(indent: string, paragraphs: string[]): string[] {
  const body = paragraphs.map((p) => wrap(p, DOC_WIDTH - indent.length).map((l) => indent + l));
  const lines = body.flatMap((p, i) => (i === 0 ? p : [indent.trimEnd(), ...p]).map((l) => (l.trim() ? l : '')));
  lines[0] = `${indent}"""${lines[0]!.slice(indent.length)}`;
  return [...lines, `${indent}"""`];
}

/**
 * A 128-bit hex digest of a text (four MurmurHash3 hashes of its UTF-8 bytes): identifies a module
 * source in row metadata without a dependency on a crypto library in pure code. Not collision-proof
 * against an adversary, which nobody here is.
 */
export function privateSourceHash(text: string): string {
  const bytes = new TextEncoder().encode(text);
  const words: number[] = [];
  for (let i = 0; i < bytes.length; i += 4) {
    words.push((bytes[i]! | ((bytes[i + 1] ?? 0) << 8) | ((bytes[i + 2] ?? 0) << 16) | ((bytes[i + 3] ?? 0) << 24)) >>> 0);
  }
  // The length tells texts apart that only differ by trailing zero padding.
  words.push(bytes.length >>> 0);
  return [0, 1, 2, 3].map((h) => murmur3Words(words, h).toString(16).padStart(8, '0')).join('');
}

function renderFunction(name: string, t: FunctionTemplate): string[] {
  const checks = t.checked.map((p) => `${p}=${p}`).join(', ');
  return [
    `def ${name}(${t.parameters}) -> str:`,
    ...docstring(INDENT, [t.summary, ...t.details]),
    `${INDENT}_require_str(${pyRepr(name)}, ${checks})`,
    `${INDENT}return ${t.result}`,
  ];
}

function renderSource(module: string, names: readonly string[]): string {
  const lines = [
    ...docstring('', [
      `${module}: a small library of text functions (version ${PRIVATE_LIBRARY_VERSION}).`,
      "Every function takes its text and settings as `str` and returns a new `str`; nothing is changed in place. Read each function's documentation: the order and the way arguments are passed differ between functions.",
    ]),
    '',
    `__all__ = [${names.map(pyRepr).join(', ')}]`,
    `__version__ = ${pyRepr(PRIVATE_LIBRARY_VERSION)}`,
    '',
    '',
    'def _require_str(function, **arguments):',
    ...docstring(INDENT, ['Raise TypeError naming the first argument that is not a str.']),
    `${INDENT}for parameter, value in arguments.items():`,
    `${INDENT}${INDENT}if not isinstance(value, str):`,
    `${INDENT}${INDENT}${INDENT}raise TypeError(f'{function}() argument {parameter!r} must be str, not {type(value).__name__}')`,
  ];
  OPERATIONS.forEach((op, i) => lines.push('', '', ...renderFunction(names[i]!, TEMPLATES[op.name]!)));
  return lines.join('\n') + '\n';
}

function buildPrivateLibrary(seed: number): PrivateLibrary {
  const [module, ...names] = nonsenseNames(seed, 0, 1 + OPERATIONS.length);
  const source = renderSource(module!, names);
  const functions = OPERATIONS.map((op, i): PrivateFunction => {
    const t = TEMPLATES[op.name]!;
    const name = names[i]!;
    const { args, text } = t.example;
    const output = op.apply(text, args);
    return {
      operation: op.name,
      name,
      signature: `${name}(${t.parameters}) -> str`,
      description: [t.summary, ...t.details].join('\n\n'),
      example: `${module}.${name}(${t.callArguments(pyRepr(text), args)})  # ${pyRepr(output)}`,
    };
  });
  return Object.freeze({
    name: PRIVATE_LIBRARY_NAME,
    version: PRIVATE_LIBRARY_VERSION,
    module: module!,
    source,
    source_hash: privateSourceHash(source),
    functions: Object.freeze(functions) as PrivateFunction[],
  });
}

// Rows of one dataset share one seed: remembering the last library saves rebuilding it per row.
let last: PrivateLibrary | undefined;
let lastSeed = -1;

/** The private library of datasets generated with `seed` (the same object for repeated calls). */
export function privateLibrary(seed: number): PrivateLibrary {
  if (last === undefined || lastSeed !== seed) {
    last = buildPrivateLibrary(seed);
    lastSeed = seed;
  }
  return last;
}

/** The function of `library` performing `operation`. */
export function privateFunction(library: PrivateLibrary, operation: string): PrivateFunction {
  const fn = library.functions.find((f) => f.operation === operation);
  if (!fn) throw new Error(`private library ${library.module} has no function for operation ${JSON.stringify(operation)}`);
  return fn;
}

/** The call of one step on the expression `subject`, e.g. `mod.fn('bb', 'aa', s)`. */
export function renderPrivateCall(library: PrivateLibrary, step: PipelineStep, subject = 's'): string {
  const op = getOperation(step.method);
  if (step.args.length !== op.arity) throw new Error(`${op.name} takes ${op.arity} argument(s), got ${step.args.length}`);
  return `${library.module}.${privateFunction(library, op.name).name}(${TEMPLATES[op.name]!.callArguments(subject, step.args)})`;
}

/** The Python statement of one step in a canonical solution, e.g. `s = mod.fn(s, edge_chars='a')`. */
export function renderPrivateStep(library: PrivateLibrary, step: PipelineStep): string {
  return `s = ${renderPrivateCall(library, step)}`;
}
