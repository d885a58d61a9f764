/**
 * How BigCodeBench asks for a solution (bigcodebench/generate.py, provider/utility.py), and what a
 * task's `libs` need from the sandbox.
 */
import { pyStrip } from '../../metrics/pythonText.js';

export type BigCodeBenchSplit = 'complete' | 'instruct';

/** run_codegen's instruction_prefix default. */
export const BIGCODEBENCH_INSTRUCTION_PREFIX =
  'Please provide a self-contained Python script that solves the following problem in a markdown code block:';

/** provider/utility.py's EOS, then extra_eos_for_direct_completion("bigcodebench"): a base model's stop words. */
export const BIGCODEBENCH_STOP_WORDS: readonly string[] = Object.freeze([
  '<|endoftext|>',
  '<|endofmask|>',
  '</s>',
  '\nif __name__',
  '\ndef main(',
  '\nprint(',
  '\ndef ',
  '\nclass ',
  '\nimport ',
  '\nfrom ',
  '\nassert ',
]);

/**
 * make_raw_chat_prompt without a tokenizer (how its API providers, OpenAI's among them, send it, as
 * the one user message): the instruction prefix, then the complete split's prompt stripped in a
 * bare ``` fence, or the instruct split's prompt stripped.
 */
export function bigCodeBenchChatMessage(
  split: BigCodeBenchSplit,
  prompt: string,
  instructionPrefix = BIGCODEBENCH_INSTRUCTION_PREFIX,
): string {
  return split === 'complete' ? `${instructionPrefix}\n\`\`\`\n${pyStrip(prompt)}\n\`\`\`\n` : `${instructionPrefix}\n${pyStrip(prompt)}\n`;
}

/**
 * A row's `libs`: Hugging Face's column is the text of a Python list (`"['pandas', 'random']"`);
 * a list is taken as it is. Null when the text is no such list.
 */
export function parseLibs(libs: string | readonly string[]): string[] | null {
  if (Array.isArray(libs)) return [...(libs as readonly string[])];
  const text = (libs as string).trim();
  if (!/^\[.*\]$/s.test(text)) return null;
  const inner = text.slice(1, -1).trim();
  if (inner === '') return [];
  const names: string[] = [];
  const item = /\s*(?:'([^']*)'|"([^"]*)")\s*(,|$)/gy;
  let match: RegExpExecArray | null;
  let at = 0;
  while (at < inner.length && (match = item.exec(inner)) !== null) {
    names.push(match[1] ?? match[2]!);
    at = item.lastIndex;
  }
  return at >= inner.length ? names : null;
}

/** The libraries of `libs` outside Python's standard library: what the BigCodeBench environment must provide. */
export function externalLibs(libs: readonly string[]): string[] {
  return libs.filter((lib) => !PYTHON_STDLIB.has(lib.split('.')[0]!));
}

/** Python 3.11's sys.stdlib_module_names without the private ones (test/families/bigcodebench.test.ts checks it against the interpreter's). */
export const PYTHON_STDLIB: ReadonlySet<string> = new Set(
  (
    'abc aifc antigravity argparse array ast asynchat asyncio asyncore atexit audioop base64 bdb binascii bisect builtins bz2 ' +
    'cProfile calendar cgi cgitb chunk cmath cmd code codecs codeop collections colorsys compileall concurrent configparser ' +
    'contextlib contextvars copy copyreg crypt csv ctypes curses dataclasses datetime dbm decimal difflib dis distutils doctest ' +
    'email encodings ensurepip enum errno faulthandler fcntl filecmp fileinput fnmatch fractions ftplib functools gc genericpath ' +
    'getopt getpass gettext glob graphlib grp gzip hashlib heapq hmac html http idlelib imaplib imghdr imp importlib inspect io ' +
    'ipaddress itertools json keyword lib2to3 linecache locale logging lzma mailbox mailcap marshal math mimetypes mmap ' +
    'modulefinder msilib msvcrt multiprocessing netrc nis nntplib nt ntpath nturl2path numbers opcode operator optparse os ' +
    'ossaudiodev pathlib pdb pickle pickletools pipes pkgutil platform plistlib poplib posix posixpath pprint profile pstats pty ' +
    'pwd py_compile pyclbr pydoc pydoc_data pyexpat queue quopri random re readline reprlib resource rlcompleter runpy sched ' +
    'secrets select selectors shelve shlex shutil signal site smtpd smtplib sndhdr socket socketserver spwd sqlite3 sre_compile ' +
    'sre_constants sre_parse ssl stat statistics string stringprep struct subprocess sunau symtable sys sysconfig syslog tabnanny ' +
    'tarfile telnetlib tempfile termios textwrap this threading time timeit tkinter token tokenize tomllib trace traceback ' +
    'tracemalloc tty turtle turtledemo types typing unicodedata unittest urllib uu uuid venv warnings wave weakref webbrowser ' +
    'winreg winsound wsgiref xdrlib xml xmlrpc zipapp zipfile zipimport zlib zoneinfo'
  ).split(' '),
);
