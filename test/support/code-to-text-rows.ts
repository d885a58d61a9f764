/**
 * CodeXGLUE code-to-text rows in the exact shape google/code_x_glue_ct_code_to_text publishes (its
 * Parquet rows, as JSON: id, repo, path, func_name, original_string, language, code, code_tokens,
 * docstring, docstring_tokens, sha, url), one or two per language, modelled on the test split's
 * rows (CodeSearchNet functions: Python's code holds its docstring, the others' code does not).
 */
import type { CodeToTextLanguage } from '../../domain/families/code-to-text/bigcode.js';

export interface CodeXGlueRow {
  id: number;
  repo: string;
  path: string;
  func_name: string;
  original_string: string;
  language: CodeToTextLanguage;
  code: string;
  code_tokens: string[];
  docstring: string;
  docstring_tokens: string[];
  sha: string;
  url: string;
}

function row(
  id: number,
  language: CodeToTextLanguage,
  fields: Pick<CodeXGlueRow, 'repo' | 'path' | 'func_name' | 'code' | 'docstring' | 'docstring_tokens'>,
): CodeXGlueRow {
  const sha = 'b746ac01c9f39de94cac2d56f665285b0523b974';
  return {
    id,
    ...fields,
    language,
    original_string: fields.code,
    code_tokens: fields.code.split(/[\s]+|(?=[()[\]{}.,;:"'])|(?<=[()[\]{}.,;:"'])/).filter((t) => t !== ''),
    sha,
    url: `https://github.com/${fields.repo}/blob/${sha}/${fields.path}#L1-L9`,
  };
}

export const CODE_TO_TEXT_ROWS: Record<CodeToTextLanguage, CodeXGlueRow[]> = {
  python: [
    row(0, 'python', {
      repo: 'soimort/you-get',
      path: 'src/you_get/extractors/youtube.py',
      func_name: 'YouTube.get_vid_from_url',
      code:
        'def get_vid_from_url(url):\n' +
        '        """Extracts video ID from URL.\n' +
        '        """\n' +
        "        return match1(url, r'youtu\\.be/([^?/]+)') or \\\n" +
        "          match1(url, r'youtube\\.com/embed/([^/?]+)') or \\\n" +
        "          parse_query_param(url, 'v')",
      docstring: 'Extracts video ID from URL.',
      docstring_tokens: ['Extracts', 'video', 'ID', 'from', 'URL', '.'],
    }),
    row(1, 'python', {
      repo: 'soimort/you-get',
      path: 'src/you_get/extractors/miomio.py',
      func_name: 'sina_xml_to_url_list',
      code:
        'def sina_xml_to_url_list(xml_data):\n' +
        "    r'''str->list\n" +
        '    Convert XML to URL List.\n' +
        "    From Biligrab.\n    '''\n" +
        '    rawurl = []\n' +
        '    dom = parseString(xml_data)\n' +
        "    for node in dom.getElementsByTagName('durl'):\n" +
        "        url = node.getElementsByTagName('url')[0]\n" +
        '        rawurl.append(url.childNodes[0].data)\n' +
        '    return rawurl',
      docstring: 'str->list\n    Convert XML to URL List.\n    From Biligrab.',
      docstring_tokens: ['r', 'str', '-', '>', 'list', 'Convert', 'XML', 'to', 'URL', 'List', '.', 'From', 'Biligrab', '.'],
    }),
  ],
  go: [
    row(0, 'go', {
      repo: 'etcd-io/etcd',
      path: 'auth/store.go',
      func_name: 'NewAuthStore',
      code:
        'func NewAuthStore(lg *zap.Logger, be backend.Backend, tp TokenProvider, bcryptCost int) *authStore {\n' +
        '\tif bcryptCost < bcrypt.MinCost || bcryptCost > bcrypt.MaxCost {\n' +
        '\t\tbcryptCost = bcrypt.DefaultCost\n\t}\n\treturn &authStore{lg: lg, be: be, tokenProvider: tp}\n}',
      docstring: "NewAuthStore creates a new AuthStore.\n// It's the caller's job to close the backend.",
      docstring_tokens: ['NewAuthStore', 'creates', 'a', 'new', 'AuthStore', '.'],
    }),
  ],
  ruby: [
    row(0, 'ruby', {
      repo: 'rails/rails',
      path: 'activesupport/lib/active_support/inflector/methods.rb',
      func_name: 'ActiveSupport.Inflector.camelize',
      code: 'def camelize(term, uppercase_first_letter = true)\n      string = term.to_s\n      string\n    end',
      docstring:
        'Converts strings to UpperCamelCase.\n If the +uppercase_first_letter+ parameter is set to false, then produces\n lowerCamelCase.',
      docstring_tokens: [
        'Converts',
        'strings',
        'to',
        'UpperCamelCase',
        '.',
        'If',
        'the',
        '+',
        'uppercase_first_letter',
        '+',
        'parameter',
        'is',
        'set',
        'to',
        'false',
        'then',
        'produces',
        'lowerCamelCase',
        '.',
      ],
    }),
  ],
  java: [
    row(0, 'java', {
      repo: 'apache/commons-lang',
      path: 'src/main/java/org/apache/commons/lang3/StringUtils.java',
      func_name: 'StringUtils.isBlank',
      code:
        'public static boolean isBlank(final CharSequence cs) {\n' +
        '        final int strLen = length(cs);\n' +
        '        if (strLen == 0) {\n            return true;\n        }\n' +
        '        for (int i = 0; i < strLen; i++) {\n' +
        '            if (!Character.isWhitespace(cs.charAt(i))) {\n                return false;\n            }\n        }\n' +
        '        return true;\n    }',
      docstring: '<p>Checks if a CharSequence is empty (""), null or whitespace only.</p>',
      docstring_tokens: [
        '<p',
        '>',
        'Checks',
        'if',
        'a',
        'CharSequence',
        'is',
        'empty',
        '(',
        '"',
        '"',
        ')',
        'null',
        'or',
        'whitespace',
        'only',
        '.',
        '<',
        '/',
        'p',
        '>',
      ],
    }),
  ],
  javascript: [
    row(0, 'javascript', {
      repo: 'lodash/lodash',
      path: 'lodash.js',
      func_name: 'baseClamp',
      code:
        'function baseClamp(number, lower, upper) {\n' +
        '      if (number === number) {\n' +
        '        if (upper !== undefined) {\n          number = number <= upper ? number : upper;\n        }\n' +
        '      }\n      return number;\n    }',
      docstring: "The base implementation of `_.clamp` which doesn't coerce arguments.",
      docstring_tokens: ['The', 'base', 'implementation', 'of', '_', '.', 'clamp', 'which', 'doesn', "'", 't', 'coerce', 'arguments', '.'],
    }),
  ],
  php: [
    row(0, 'php', {
      repo: 'laravel/framework',
      path: 'src/Illuminate/Support/Str.php',
      func_name: 'Str.limit',
      code:
        "public static function limit($value, $limit = 100, $end = '...')\n    {\n" +
        "        if (mb_strwidth($value, 'UTF-8') <= $limit) {\n            return $value;\n        }\n\n" +
        "        return rtrim(mb_strimwidth($value, 0, $limit, '', 'UTF-8')).$end;\n    }",
      docstring: 'Limit the number of characters in a string.',
      docstring_tokens: ['Limit', 'the', 'number', 'of', 'characters', 'in', 'a', 'string', '.'],
    }),
  ],
};

/** A language's rows as a JSON Lines file (Hugging Face's rows written one JSON object a line). */
export function codeToTextJsonl(rows: readonly CodeXGlueRow[]): string {
  return rows.map((r) => JSON.stringify(r) + '\n').join('');
}
