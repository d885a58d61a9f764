/**
 * LiveCodeBench's extraction of the code from a chat model's answer (lcb_runner/utils/extraction_utils.py
 * extract_code, for every chat style but CodeLLaMa-Instruct's): the answer's lines (split at `\n`
 * only), those containing three backticks anywhere marking fences; the lines between the last two
 * of them; nothing when fewer than two lines have one. So the last fenced block, whatever its
 * language, and an answer without fences gives no code.
 */
export function lcbExtractCode(answer: string): string {
  const lines = answer.split('\n');
  const fences = lines.flatMap((line, i) => (line.includes('```') ? [i] : []));
  if (fences.length < 2) return '';
  return lines.slice(fences.at(-2)! + 1, fences.at(-1)).join('\n');
}
