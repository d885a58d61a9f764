/**
 * The planner's answer: a numbered list of API subtasks (`1. text` per line). Anything else in the
 * answer (a preamble, code fences, blank lines) is ignored; an answer without a usable list is
 * malformed and asked again.
 */

export interface ParsedPlan {
  subtasks: string[];
  /** Subtasks dropped because the plan was longer than allowed. */
  cut: number;
}

const ITEM = /^\s*(?:[-*]\s*)?(?:\*\*)?(?:step\s*)?(\d{1,2})\s*[.):]\s*(?:\*\*)?\s*(.+?)\s*$/i;

/** null when the answer holds no numbered list starting at 1. */
export function parsePlan(text: string, maxSubtasks: number): ParsedPlan | null {
  const items: string[] = [];
  let expected = 1;
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    const m = ITEM.exec(line);
    if (!m) continue;
    const n = Number(m[1]);
    // A second list (e.g. a restatement) starting again at 1 ends the plan.
    if (n !== expected) {
      if (items.length > 0) break;
      continue;
    }
    const body = m[2]!.replace(/\*\*/g, '').trim();
    if (!body) continue;
    items.push(body);
    expected++;
  }
  if (items.length === 0) return null;
  return { subtasks: items.slice(0, maxSubtasks), cut: Math.max(0, items.length - maxSubtasks) };
}

export function formatPlan(subtasks: string[]): string {
  return subtasks.map((s, i) => `${i + 1}. ${s}`).join('\n');
}
