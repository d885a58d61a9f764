/**
 * bigcode's HumanEvalPack post-processing (humanevalpack.py): remove_last_block (the stop words,
 * then the first line at column 0 for Python, the first closing of the function's braces for the
 * other languages), postprocess_generation (the prompt base, right-stripped, before the kept
 * text) and process_results' per-language changes for the languages explora runs (Python: its
 * import helper before the code, stripped).
 */
import { pyStrip } from '../../metrics/pythonText.js';
import { pyRstrip } from '../repairText.js';
import type { PackLanguage, RunLanguage } from './prompts.js';

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

/**
 * The program's code before the tests, as process_results makes it of a post-processed
 * generation: Python's behind the import helper, stripped; JavaScript's as it is.
 */
export function packProgramCode(language: RunLanguage, generation: string): string {
  return language === 'python' ? pyStrip(PYTHON_IMPORT_HELPER.join('\n') + '\n' + generation) : generation;
}
