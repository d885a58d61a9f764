/**
 * What Spider's official evaluator (test-suite-sql-eval, exec_eval.py) does to both queries before
 * running them: postprocess() (closing up "> =", "< =", "! ="), then by default remove_distinct():
 * sqlparse's first statement only, without its tokens that are the word DISTINCT (any case); and
 * at execution, YEAR(CURDATE()) becomes 2020. The statement split and the tokens follow sqlparse
 * 0.5 where a one-statement query can differ: quoted strings and names, comments, @ and :
 * variables, names with $ and #; after the first top-level ";" the statement keeps the spaces and
 * tabs that follow and a single-line comment. Not followed: sqlparse keeps BEGIN ... END blocks
 * (CREATE TRIGGER bodies) in one statement, where this cuts at their first ";".
 */
import { PY_SPACE_CLASS } from './pythonText.js';

/** The evaluator's postprocess() of both queries: "> =", "< =" and "! =" closed up. */
export function spiderPostprocess(query: string): string {
  return query.replaceAll('> =', '>=').replaceAll('< =', '<=').replaceAll('! =', '!=');
}

const TOKEN = new RegExp(
  [
    // one token per whitespace character, as sqlparse's lexer has them
    `\\r\\n|[${PY_SPACE_CLASS}]`,
    '--[^\\n]*\\n?',
    '#[^\\n]*\\n?',
    '/\\*[\\s\\S]*?\\*/',
    "'(?:''|\\\\'|[^'])*'",
    '"(?:""|\\\\"|[^"])*"',
    '`(?:``|[^`])*`',
    '\\[[^\\]]*\\]',
    '[@:][\\p{L}\\p{N}_$#]+',
    '[\\p{L}\\p{N}_][\\p{L}\\p{N}_$#]*',
    '[\\s\\S]',
  ].join('|'),
  'gu',
);
const INLINE_SPACE = new RegExp(`^[${PY_SPACE_CLASS.replace('\\t\\n', '\\t').replace('\\r', '')}]$`, 'u');
const LINE_COMMENT = /^(--|#)/;

/** The tokens of the first statement, as remove_distinct() sees them. */
export function firstStatementTokens(query: string): string[] {
  const tokens: string[] = query.match(TOKEN) ?? [];
  const end = tokens.indexOf(';');
  if (end < 0) return tokens;
  let last = end;
  while (last + 1 < tokens.length && INLINE_SPACE.test(tokens[last + 1]!)) last += 1;
  if (last + 1 < tokens.length && LINE_COMMENT.test(tokens[last + 1]!)) last += 1;
  return tokens.slice(0, last + 1);
}

/** remove_distinct(): the first statement without its DISTINCT tokens. */
export function removeDistinct(query: string): string {
  return firstStatementTokens(query)
    .filter((t) => t.toLowerCase() !== 'distinct')
    .join('');
}

/** Both queries as the evaluator runs them (keep_distinct false by default, as its CLI). */
export function spiderPrepareQuery(query: string, { keepDistinct = false }: { keepDistinct?: boolean } = {}): string {
  const post = spiderPostprocess(query);
  return keepDistinct ? post : removeDistinct(post);
}

const WS = `[${PY_SPACE_CLASS}]*`;
const CUR_YEAR = new RegExp(`YEAR${WS}\\(${WS}CURDATE${WS}\\(${WS}\\)${WS}\\)${WS}`, 'giu');

/** replace_cur_year(): the evaluator's stand-in for MySQL's YEAR(CURDATE()). */
export function replaceCurYear(query: string): string {
  return query.replace(CUR_YEAR, '2020');
}
