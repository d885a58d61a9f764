/**
 * The API library of PBE World's public tasks: every public method of Python 3's `str`, described
 * in our own words. Signatures follow the interpreter's own (`/` ends positional-only parameters;
 * brackets mark the optional arguments of methods the interpreter gives no signature for). Each
 * example is `expression  # repr of its value`, and a test evaluates them with real Python.
 */
import type { ApiDoc, ApiLibrary } from './library.js';

function method(name: string, params: string, description: string, example: string): ApiDoc {
  return { import_path: `str.${name}`, name, signature: `str.${name}(${params})`, description, examples: [example] };
}

const DOCS: ApiDoc[] = [
  method(
    'capitalize',
    '/',
    'Return a copy of the string with its first character in upper case and all the other characters in lower case.',
    "'hELLO wORLD'.capitalize()  # 'Hello world'",
  ),
  method(
    'casefold',
    '/',
    'Return a casefolded copy of the string, a more aggressive form of lower case meant for caseless comparison. ' +
      "Unlike lower(), it also folds characters such as the German 'ß' to 'ss'.",
    "'Straße'.casefold()  # 'strasse'",
  ),
  method(
    'center',
    "width, fillchar=' ', /",
    'Return the string centered in a new string of length width, padded on both sides with fillchar (a space by default). ' +
      'The original string is returned if width is not larger than its length.',
    "'ab'.center(6, '*')  # '**ab**'",
  ),
  method(
    'count',
    'sub[, start[, end]]',
    'Return the number of non-overlapping occurrences of substring sub in the string, optionally only within the slice [start:end].',
    "'banana'.count('an')  # 2",
  ),
  method(
    'encode',
    "/, encoding='utf-8', errors='strict'",
    'Encode the string into a bytes object using the given codec (UTF-8 by default). ' +
      "errors chooses how unencodable characters are handled: 'strict' raises UnicodeEncodeError, others include 'ignore', 'replace' and 'xmlcharrefreplace'.",
    "'café'.encode()  # b'caf\\xc3\\xa9'",
  ),
  method(
    'endswith',
    'suffix[, start[, end]]',
    'Return True if the string ends with the given suffix, otherwise False. ' +
      'suffix may also be a tuple of suffixes to try; start and end restrict the check to that slice of the string.',
    "'report.csv'.endswith(('.csv', '.tsv'))  # True",
  ),
  method(
    'expandtabs',
    '/, tabsize=8',
    'Return a copy of the string in which every tab character is replaced by spaces up to the next tab stop, with tab stops every tabsize columns (8 by default). ' +
      'The column count restarts after each newline or carriage return.',
    "'a\\tbc\\td'.expandtabs(4)  # 'a   bc  d'",
  ),
  method(
    'find',
    'sub[, start[, end]]',
    'Return the lowest index in the string where substring sub is found, optionally searching only within [start:end]; return -1 if it is not found.',
    "'hello'.find('l')  # 2",
  ),
  method(
    'format',
    '*args, **kwargs',
    'Perform string formatting: replace each replacement field in braces, such as {} or {0} or {name}, with the corresponding positional or keyword argument, applying any format spec after a colon. ' +
      'Literal braces are written as {{ and }}.',
    "'{} has {n} items'.format('cart', n=3)  # 'cart has 3 items'",
  ),
  method(
    'format_map',
    'mapping, /',
    'Format the string like format(**mapping), except that the replacement fields are looked up directly in the given mapping without copying it into a dict, so a dict subclass with __missing__ can supply defaults.',
    "'{x}-{y}'.format_map({'x': 1, 'y': 2})  # '1-2'",
  ),
  method(
    'index',
    'sub[, start[, end]]',
    'Search like find(), but raise ValueError when the substring is not found. Otherwise return what find() would: the lowest position where sub occurs.',
    "'hello'.index('lo')  # 3",
  ),
  method(
    'isalnum',
    '/',
    'Return True if the string is non-empty and every character is alphanumeric (a letter or a digit of any kind), otherwise False.',
    "'abc123'.isalnum()  # True",
  ),
  method(
    'isalpha',
    '/',
    'Return True if the string is non-empty and every character is alphabetic (a letter), otherwise False.',
    "'abc1'.isalpha()  # False",
  ),
  method(
    'isascii',
    '/',
    'Return True if the string is empty or every character is ASCII (code point below 128), otherwise False.',
    "'naïve'.isascii()  # False",
  ),
  method(
    'isdecimal',
    '/',
    'Return True if the string is non-empty and every character is a decimal digit, the characters usable to write base-10 numbers, otherwise False.',
    "'0123'.isdecimal()  # True",
  ),
  method(
    'isdigit',
    '/',
    'Return True if the string is non-empty and every character is a digit, including decimal digits and characters such as superscript digits, otherwise False.',
    "'²3'.isdigit()  # True",
  ),
  method(
    'isidentifier',
    '/',
    'Return True if the string is a valid Python identifier (a name that may be used for a variable), otherwise False. ' +
      'Keywords such as def count as identifiers; use keyword.iskeyword() to rule them out.',
    "'my_var1'.isidentifier()  # True",
  ),
  method(
    'islower',
    '/',
    'Return True if the string has at least one cased character and all its cased characters are lower case, otherwise False.',
    "'abc 123'.islower()  # True",
  ),
  method(
    'isnumeric',
    '/',
    'Return True if the string is non-empty and every character is numeric, which includes digits and characters such as fractions and Roman numerals, otherwise False.',
    "'½'.isnumeric()  # True",
  ),
  method(
    'isprintable',
    '/',
    'Return True if every character in the string is printable or the string is empty, otherwise False. ' +
      'Control characters such as newline and tab are not printable; the ASCII space is.',
    "'tab\\there'.isprintable()  # False",
  ),
  method(
    'isspace',
    '/',
    'Return True if the string is non-empty and every character is whitespace (spaces, tabs, newlines and similar), otherwise False.',
    "' \\t\\n'.isspace()  # True",
  ),
  method(
    'istitle',
    '/',
    'Return True if the string is title-cased: it has at least one cased character, every word starts with an upper case letter and the remaining cased letters of each word are lower case.',
    "'Hello World'.istitle()  # True",
  ),
  method(
    'isupper',
    '/',
    'Return True if the string has at least one cased character and all its cased characters are upper case, otherwise False.',
    "'ABC 123'.isupper()  # True",
  ),
  method(
    'join',
    'iterable, /',
    'Concatenate the strings of an iterable into one string, inserting the string the method is called on as the separator between them. ' +
      'Raises TypeError if any item is not a string.',
    "', '.join(['a', 'b', 'c'])  # 'a, b, c'",
  ),
  method(
    'ljust',
    "width, fillchar=' ', /",
    'Return the string left-justified (aligned left) in a string of length width, filled out at the end with fillchar (a space by default). ' +
      'The original string is returned if width is not larger than its length.',
    "'ab'.ljust(5, '.')  # 'ab...'",
  ),
  method(
    'lower',
    '/',
    'Return a copy of the string with all cased characters converted to lower case.',
    "'Hello World'.lower()  # 'hello world'",
  ),
  method(
    'lstrip',
    'chars=None, /',
    'Return a copy of the string with leading characters stripped from the left (start) only. ' +
      'chars is the set of characters to remove (any combination of them, not a prefix); by default whitespace is removed.',
    "'xxhixx'.lstrip('x')  # 'hixx'",
  ),
  method(
    'maketrans',
    'x[, y[, z]]',
    'Static method that builds a translation table for translate(). ' +
      'With one argument, x is a dict mapping characters or code points to strings, code points or None; with two, x and y are strings of equal length whose characters map position by position; a third string z lists characters to delete.',
    "str.maketrans('ab', 'xy', 'c')  # {97: 120, 98: 121, 99: None}",
  ),
  method(
    'partition',
    'sep, /',
    'Split the string at the first occurrence of separator sep and return a 3-tuple: the part before it, the separator itself, and the part after it. ' +
      'If sep is not found, the tuple is the whole string followed by two empty strings.',
    "'key=value=x'.partition('=')  # ('key', '=', 'value=x')",
  ),
  method(
    'removeprefix',
    'prefix, /',
    'Return a copy of the string with the given prefix removed from the beginning if the string starts with it; otherwise return the string unchanged.',
    "'test_case'.removeprefix('test_')  # 'case'",
  ),
  method(
    'removesuffix',
    'suffix, /',
    'Return a copy of the string with the given suffix removed from the end if the string ends with it; otherwise return the string unchanged.',
    "'data.txt'.removesuffix('.txt')  # 'data'",
  ),
  method(
    'replace',
    'old, new, count=-1, /',
    'Return a copy of the string with every occurrence of substring old replaced by new. ' +
      'If count is given and not negative, only the first count occurrences are replaced.',
    "'a-b-c'.replace('-', '+')  # 'a+b+c'",
  ),
  method(
    'rfind',
    'sub[, start[, end]]',
    'Return the highest index in the string where substring sub is found (searching from the right), optionally only within [start:end]; return -1 if it is not found.',
    "'hello'.rfind('l')  # 3",
  ),
  method(
    'rindex',
    'sub[, start[, end]]',
    'Search like rfind(), but raise ValueError when the substring is not found. Otherwise return what rfind() would: the highest position where sub occurs.',
    "'hello'.rindex('l')  # 3",
  ),
  method(
    'rjust',
    "width, fillchar=' ', /",
    'Return the string right-justified (aligned right) in a string of length width, filled out at the start with fillchar (a space by default). ' +
      'The original string is returned if width is not larger than its length.',
    "'7'.rjust(3, '0')  # '007'",
  ),
  method(
    'rpartition',
    'sep, /',
    'Split the string at the last occurrence of separator sep and return a 3-tuple: the part before it, the separator itself, and the part after it. ' +
      'If sep is not found, the tuple is two empty strings followed by the whole string.',
    "'a/b/c'.rpartition('/')  # ('a/b', '/', 'c')",
  ),
  method(
    'rsplit',
    '/, sep=None, maxsplit=-1',
    'Split the string into a list of substrings, working from the right end, using sep as the separator. ' +
      'At most maxsplit splits are made, the rightmost ones; without sep, runs of whitespace separate the words as in split().',
    "'a,b,c'.rsplit(',', 1)  # ['a,b', 'c']",
  ),
  method(
    'rstrip',
    'chars=None, /',
    'Return a copy of the string with trailing characters stripped from the right (end) only. ' +
      'chars is the set of characters to remove (any combination of them, not a suffix); by default whitespace is removed.',
    "'hello!!?'.rstrip('!?')  # 'hello'",
  ),
  method(
    'split',
    '/, sep=None, maxsplit=-1',
    'Split the string into a list of substrings (words) using sep as the separator string. ' +
      'At most maxsplit splits are made from the left; without sep, runs of whitespace separate the words and leading or trailing whitespace yields no empty strings.',
    "'a,b,,c'.split(',')  # ['a', 'b', '', 'c']",
  ),
  method(
    'splitlines',
    '/, keepends=False',
    'Split the string into a list of lines, breaking at line boundaries such as \\n, \\r\\n and \\r. ' +
      'The line break characters are dropped unless keepends is true.',
    "'one\\ntwo\\r\\nthree'.splitlines()  # ['one', 'two', 'three']",
  ),
  method(
    'startswith',
    'prefix[, start[, end]]',
    'Return True if the string starts with the given prefix, otherwise False. ' +
      'prefix may also be a tuple of prefixes to try; start and end restrict the check to that slice of the string.',
    "'http://x.org'.startswith(('http://', 'https://'))  # True",
  ),
  method(
    'strip',
    'chars=None, /',
    'Return a copy of the string with leading and trailing characters stripped from both ends. ' +
      'chars is the set of characters to remove (any combination of them); by default whitespace is removed.',
    "'  padded  '.strip()  # 'padded'",
  ),
  method(
    'swapcase',
    '/',
    'Return a copy of the string in which upper case characters become lower case and lower case characters become upper case.',
    "'Hello World'.swapcase()  # 'hELLO wORLD'",
  ),
  method(
    'title',
    '/',
    'Return a title-cased copy of the string: each word starts with an upper case character and its remaining characters are lower case. ' +
      'Any run of letters counts as a word, so apostrophes split words ("they\'re" becomes "They\'Re").',
    "'hello wide world'.title()  # 'Hello Wide World'",
  ),
  method(
    'translate',
    'table, /',
    'Return a copy of the string in which each character is mapped through the given translation table, usually built with str.maketrans(). ' +
      'The table maps code points to strings, code points or None (delete); characters it does not map are left unchanged.',
    "'abc'.translate(str.maketrans('abc', 'xyz'))  # 'xyz'",
  ),
  method(
    'upper',
    '/',
    'Return a copy of the string with all cased characters converted to upper case.',
    "'Hello World'.upper()  # 'HELLO WORLD'",
  ),
  method(
    'zfill',
    'width, /',
    'Return a copy of the string padded on the left with zeros to length width. ' +
      'A leading sign (+ or -) stays in front of the zeros; the original string is returned if width is not larger than its length.',
    "'-42'.zfill(6)  # '-00042'",
  ),
];

export const PYTHON_STR_LIBRARY: ApiLibrary = {
  name: 'python-str',
  summary:
    "Python's built-in str type: immutable Unicode text whose methods return new strings (or lists, tuples, numbers and booleans) rather than changing the original. " +
    'The methods cover changing case, searching for and counting substrings, replacing and removing text, splitting and joining, padding and alignment, and testing what kind of characters a string holds. ' +
    'They are called on a string value, as in s.upper(), and need no import.',
  docs: DOCS,
  runtime: { kind: 'builtin' },
};
