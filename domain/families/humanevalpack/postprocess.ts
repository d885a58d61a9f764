/**
 * bigcode's HumanEvalPack post-processing (humanevalpack.py): remove_last_block (the stop words,
 * then the first line at column 0 for Python, the first closing of the function's braces for the
 * other languages), postprocess_generation (the prompt base, right-stripped, before the kept
 * text) and process_results' per-language changes for the languages explora runs (Python: its
 * import helper before the code, stripped; C++, Java, Go and Rust as packProgramCode says).
 */
import { pyStrip } from '../../metrics/pythonText.js';
import { pyRstrip } from '../repairText.js';
import type { PackLanguage } from './prompts.js';

/** bigcode's remove_last_block of HumanEvalPackGenerative. */
export function packRemoveLastBlock(code: string, language: PackLanguage, stopWords: readonly string[]): string {
  for (const word of stopWords) {
    const at = code.indexOf(word);
    if (at >= 0) code = code.slice(0, at);
  }
  if (language === 'python') {
    const lines = code.split('\n');
    const at = lines.findIndex((line) => pyStrip(line).length > 0 && line[0] !== ' ' && line[0] !== '\t');
    return at < 0 ? code : lines.slice(0, at).join('\n');
  }
  let open = language === 'java' ? 2 : 1;
  for (let i = 0; i < code.length; i++) {
    if (code[i] === '{') open++;
    else if (code[i] === '}') open--;
    if (open === 0) return code.slice(0, i + 1);
  }
  if (language === 'java') {
    const main = code.indexOf('public static void main');
    if (main !== -1) code = code.slice(0, main) + '}';
    if (code.includes('}')) code = code.slice(0, code.lastIndexOf('}')) + '}';
    if (count(code, '{') - 1 === count(code, '}')) code += '\n}';
    return code;
  }
  return code.includes('}') ? code.slice(0, code.lastIndexOf('}')) + '}' : code;
}

const count = (text: string, ch: string) => text.split(ch).length - 1;

/**
 * bigcode's postprocess_generation, given the text after the prompt as a request with the stop
 * words returns it (up to the first one): cut by remove_last_block, after the prompt base
 * right-stripped (the row's prompt for Synthesize, its prompt base for Fix). bigcode right-strips
 * its text first, which then ends with the stop word, so stripping changes nothing; a text that
 * ended otherwise (end of text, token limit) bigcode strips and explora keeps as it is: the same
 * program up to trailing whitespace.
 */
export function packPostprocess(continuation: string, base: string, language: PackLanguage, stopWords: readonly string[]): string {
  return pyRstrip(base) + packRemoveLastBlock(continuation, language, stopWords);
}

/** bigcode's IMPORT_HELPER["python"] (from CodeGeeX). */
export const PYTHON_IMPORT_HELPER = [
  'import math',
  'import re',
  'import sys',
  'import copy',
  'import datetime',
  'import itertools',
  'import collections',
  'import heapq',
  'import statistics',
  'import functools',
  'import hashlib',
  'import numpy',
  'import numpy as np',
  'import string',
  'from typing import *',
  'from collections import *',
] as const;

/** bigcode's IMPORT_HELPER["cpp"] (from CodeGeeX): put before every C++ generation, `using namespace std;` first. */
export const CPP_IMPORT_HELPER = [
  'using namespace std;',
  '#include<stdlib.h>',
  '#include<algorithm>',
  '#include<cmath>',
  '#include<math.h>',
  '#include<numeric>',
  '#include<stdio.h>',
  '#include<vector>',
  '#include<set>',
  '#include<map>',
  '#include<queue>',
  '#include<stack>',
  '#include<list>',
  '#include<deque>',
  '#include<boost/any.hpp>',
  '#include<string>',
  '#include<climits>',
  '#include<cstring>',
  '#include<iostream>',
  '#include<sstream>',
  '#include<fstream>',
] as const;

/** bigcode's IMPORT_HELPER["go"]: the packages it imports for a Go program that uses them. */
export const GO_IMPORT_HELPER = [
  'math',
  'strings',
  'fmt',
  'strconv',
  'time',
  'bytes',
  'regexp',
  'sort',
  'math/rand',
  'crypto/md5',
] as const;

/** The fields of a row process_results reads besides the generation: Rust's declaration, Go's test setup. */
export interface PackProgramRow {
  declaration?: string;
  test_setup?: string;
  /** The reference (bigcode's get_reference: a newline, then the row's test): Go looks for packages in it. */
  reference?: string;
}

/**
 * The program's code before the tests, as process_results makes it of a post-processed
 * generation: Python's behind the import helper, stripped; C++'s behind its import helper, cut
 * before any `int main`, stripped; Java's without an empty Main class, stripped; Go's behind the
 * row's test setup and an import of the helper's packages the program uses; Rust's with
 * `fn main(){}` and the declaration's lines it lacks before it. JavaScript's as it is.
 */
export function packProgramCode(language: PackLanguage, generation: string, row: PackProgramRow = {}): string {
  switch (language) {
    case 'python':
      return pyStrip(PYTHON_IMPORT_HELPER.join('\n') + '\n' + generation);
    case 'js':
      return generation;
    case 'cpp':
      return pyStrip(CPP_IMPORT_HELPER.join('\n') + '\n' + generation.split('int main')[0]);
    case 'java':
      return pyStrip(generation.split('public class Main {\n    }').join(''));
    case 'go':
      return goProgramCode(generation, row.test_setup ?? '', row.reference ?? '');
    case 'rust':
      return rustProgramCode(generation, row.declaration ?? '');
  }
}

/**
 * process_results' Go branch for one generation: the row's test setup (package main, testing and
 * testify's imports) without the import lines the generation already has, then an import of the
 * helper's packages the program (setup, generation, tests) uses on a line that is not a comment
 * and does not import (as bigcode: by the last part of the path, `"rand"` for math/rand), then the
 * generation (its own `package main` dropped when the setup has one). bigcode carries the trimmed
 * setup over to the task's next generations and orders the packages as a Python set does; here
 * each generation starts from the row's setup, the packages in the helper's order (docs/datasets/humanevalpack.md).
 */
function goProgramCode(generation: string, testSetup: string, reference: string): string {
  let setup = testSetup + '\n';
  for (const raw of setup.split('\n')) {
    const line = pyStrip(raw.split('import').join('').split('(').join('').split(')').join(''));
    if (line.startsWith('"') && generation.includes(line)) setup = setup.split(line).join('');
  }
  const whole = setup + generation + '\n' + reference;
  const packages: string[] = [];
  for (const pkg of GO_IMPORT_HELPER) {
    if (whole.includes(`"${pkg}"`)) continue;
    const name = pkg.split('/').at(-1)!;
    if (!whole.includes(name + '.')) continue;
    if (whole.split('\n').some((line) => line.includes(name + '.') && !pyStrip(line).startsWith('//'))) packages.push(`"${name}"`);
  }
  const imports = packages.length ? 'import (\n' + packages.map((p) => '    ' + p).join('\n') + '\n)\n' : '';
  const code =
    generation.includes('package main') && setup.includes('package main') ? generation.split('package main').join('') : generation;
  return setup + imports + code;
}

/** process_results' Rust branch: `fn main(){}` unless there is one, the declaration's lines the generation lacks, the generation up to a second `fn main()`. */
function rustProgramCode(generation: string, declaration: string): string {
  let code = generation.includes('fn main()') ? '' : 'fn main(){}\n';
  for (const raw of declaration.split('\n')) {
    const line = pyStrip(raw);
    if (generation.includes(line)) continue;
    if (line.startsWith('fn') && generation.includes(line.split('(')[0]!)) continue;
    code += line + '\n';
  }
  return code + generation.split('fn main()').slice(0, 2).join('fn main()');
}
