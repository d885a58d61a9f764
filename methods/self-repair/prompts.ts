/**
 * `self-repair`: generate a whole solution, run it on the visible examples, show the model what went
 * wrong, and ask for a fixed version; at most as many repair rounds as ExploraCoder planned subtasks
 * for the task (the paper's equal-budget comparison). The first generation is `rag`'s (docs in the
 * prompt) when the dataset has a library, else `direct`'s, so that its cached answer is shared.
 */
import { isStatementTask, type SweepProblem } from '../../domain/datasets/problems.js';
import type { ChatMessage } from '../../domain/llm/request.js';
import { clip, pythonBlock } from '../../domain/methods/chat.js';

export function repairMessages(
  first: readonly ChatMessage[],
  problem: SweepProblem,
  code: string,
  feedback: string,
  maxChars: number,
): ChatMessage[] {
  return [
    ...first,
    { role: 'assistant', content: pythonBlock(code) },
    {
      role: 'user',
      content:
        `Running your function on the task's examples failed:\n${clip(feedback.replace(/\s+$/, ''), maxChars)}\n\n` +
        `Find the cause and reply with the corrected complete ${isStatementTask(problem) ? 'script' : `function \`${problem.entry_point}\``} in one \`\`\`python code block.`,
    },
  ];
}
