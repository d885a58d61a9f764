/**
 * ExploraCoder's prompts, one function per step, following the structure described in the paper
 * (see ../shared/reference/exploracoder.md): planner, per-subtask rerank, global rerank, Chain of
 * API Exploration candidates, self-debug, and the final solution. Pure: every prompt is a function
 * of the task, the library, and what earlier steps stored, so a retried step sends the same bytes
 * (and hits the LLM cache).
 */
import type { ApiDoc, ApiLibrary, PlannerExample } from '../../domain/apidocs/library.js';
import { rankTexts } from '../../domain/apidocs/bm25.js';
import { formatApiDoc, indexText } from '../../domain/apidocs/corpus.js';
import { isStatementTask, type SweepProblem } from '../../domain/datasets/problems.js';
import type { ChatMessage } from '../../domain/llm/request.js';
import { clip, pythonBlock } from '../../domain/methods/chat.js';
import { stepSystemMessage, type PromptTemplate } from '../../domain/methods/promptTemplate.js';
import { formatPlan } from './plan.js';

/** What one run of a snippet showed: the part of an observation a model sees. */
export interface Observation {
  /** Ran to the end without an exception. */
  ok: boolean;
  /** e.g. `passed`, `error`, `timeout`, `rejected` (the runtime refused it), `llm_error`. */
  status: string;
  stdout: string;
  /** `Type: message` and the end of the traceback, names as the library's users know them. */
  error?: string;
}

export interface Experience {
  /** The subtask's position in the plan (0-based): its label, whether or not earlier subtasks kept anything. */
  index: number;
  subtask: string;
  code: string;
  observation: Observation;
}

export function formatObservation(o: Observation, maxChars: number): string {
  const lines = [`status: ${o.ok ? 'ran without error' : `failed (${o.status})`}`];
  lines.push(o.stdout.trim() ? `output:\n${clip(o.stdout.replace(/\s+$/, ''), maxChars)}` : 'output: (nothing printed)');
  if (o.error) lines.push(`error:\n${clip(o.error.replace(/\s+$/, ''), maxChars)}`);
  return lines.join('\n');
}

function exampleInputs(problem: SweepProblem): string {
  if (!problem.examples?.length) return '';
  const rows = problem.examples.map((e) => `    ${e.input}  ->  ${e.output}`);
  return `Example inputs and expected outputs from the task (Python literals):\n${rows.join('\n')}\n\n`;
}

function docsBlock(docs: readonly ApiDoc[]): string {
  return docs.length ? docs.map(formatApiDoc).join('\n\n') : '(no documentation retrieved)';
}

function experienceBlock(experiences: readonly Experience[], maxChars: number): string {
  return experiences
    .map(
      (e) =>
        `### Subtask ${e.index + 1}: ${e.subtask}\n${pythonBlock(e.code)}\nObservation:\n${formatObservation(e.observation, maxChars)}`,
    )
    .join('\n\n');
}

// ---------------------------------------------------------------------------------------------
// 1. Planning

/** The planner's template, the same for every demo and the target: `[Task] <requirement> [Subtasks]`. */
export function plannerTurn(requirement: string): string {
  return `[Task]\n${requirement.trim()}\n[Subtasks]`;
}

export const PLANNER_SYSTEM = 'You are an expert programmer who plans how to solve a task with a library before writing code.';

/**
 * The paper's planner prompt: the instruction and the library summary, then each demo as its own
 * user turn (the template) and assistant turn (its numbered subtasks), then the target in the same
 * template. The target is the task's requirement in words (requirement.ts), never its code stub.
 */
export function plannerMessages(input: {
  requirement: string;
  library: ApiLibrary;
  demos: readonly PlannerExample[];
  /** Ablation: without the library summary and planner demos. */
  withSummary: boolean;
}): ChatMessage[] {
  const instruction =
    `${PLANNER_SYSTEM} Break each task into a short sequence of subtasks, each implementable by invoking one or two APIs of the library \`${input.library.name}\`, ` +
    'and name the API each subtask uses. Write the subtasks as a numbered list, one per line (`1. ...`), in the order they must run, and nothing else.';
  const messages: ChatMessage[] = [
    { role: 'system', content: input.withSummary ? `${instruction}\n\nAbout the library:\n${input.library.summary}` : instruction },
  ];
  if (input.withSummary) {
    for (const demo of input.demos) {
      messages.push({ role: 'user', content: plannerTurn(demo.requirement) }, { role: 'assistant', content: formatPlan(demo.subtasks) });
    }
  }
  messages.push({ role: 'user', content: plannerTurn(input.requirement) });
  return messages;
}

/** The `count` demos most similar to the requirement (BM25 over the demos' requirements), best first. */
export function pickPlannerExamples(all: readonly PlannerExample[], requirement: string, count: number): PlannerExample[] {
  if (all.length === 0 || count === 0) return [];
  return rankTexts(
    all.map((d) => `${d.requirement} ${d.subtasks.join(' ')}`),
    requirement,
    count,
  ).map((i) => all[i]!);
}

/** The demo a plan repeats word for word (case and spacing aside), if any. */
export function copiedDemo(subtasks: readonly string[], demos: readonly PlannerExample[]): PlannerExample | undefined {
  const norm = (xs: readonly string[]) =>
    xs
      .map((x) =>
        x
          .toLowerCase()
          .replace(/\s+/g, ' ')
          .replace(/[.\s]+$/, '')
          .trim(),
      )
      .join('\n');
  const plan = norm(subtasks);
  return demos.find((d) => norm(d.subtasks) === plan);
}

// ---------------------------------------------------------------------------------------------
// 2. API recommendation

export function rerankMessages(input: {
  problem: SweepProblem;
  subtask: string;
  candidates: readonly ApiDoc[];
  keep: number;
}): ChatMessage[] {
  const list = input.candidates.map((d, i) => `[${i + 1}] ${indexText(d)}`).join('\n');
  return [
    { role: 'system', content: 'You select the library APIs a programming step needs.' },
    {
      role: 'user',
      content:
        `Overall task:\n${input.problem.prompt.trim()}\n\nCurrent subtask: ${input.subtask}\n\nCandidate APIs:\n${list}\n\n` +
        `Which of these APIs are needed to implement the current subtask? Answer with their import paths exactly as written above, ` +
        `one per line, most relevant first, at most ${input.keep}. Leave out the irrelevant ones. If none is relevant, answer NONE.`,
    },
  ];
}

export function globalRerankMessages(input: {
  problem: SweepProblem;
  subtasks: readonly string[];
  candidates: readonly ApiDoc[];
  keep: number;
}): ChatMessage[] {
  const list = input.candidates.map((d, i) => `[${i + 1}] ${indexText(d)}`).join('\n');
  return [
    { role: 'system', content: 'You select the library APIs a program needs.' },
    {
      role: 'user',
      content:
        `Task:\n${input.problem.prompt.trim()}\n\nPlanned subtasks:\n${formatPlan([...input.subtasks])}\n\nCandidate APIs:\n${list}\n\n` +
        `Keep the ${input.keep} APIs most useful for solving the whole task. Answer with their import paths exactly as written above, one per line, most useful first.`,
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// 3. Chain of API Exploration

const EXPLORER =
  'You are learning a library you have never used by writing small experiments, running them, and observing what they print.';

export function exploreMessages(input: {
  problem: SweepProblem;
  library: ApiLibrary;
  subtasks: readonly string[];
  index: number;
  experiences: readonly Experience[];
  apis: readonly ApiDoc[];
  observationChars: number;
}): ChatMessage[] {
  const earlier = input.experiences.length
    ? `What the experiments for earlier subtasks established:\n\n${experienceBlock(input.experiences, input.observationChars)}\n\n`
    : '';
  return [
    { role: 'system', content: EXPLORER },
    {
      role: 'user',
      content:
        `We are working towards this task, one subtask at a time:\n${input.problem.prompt.trim()}\n\n` +
        exampleInputs(input.problem) +
        `Plan:\n${formatPlan([...input.subtasks])}\n\n` +
        earlier +
        `Current subtask (${input.index + 1} of ${input.subtasks.length}): ${input.subtasks[input.index]}\n\n` +
        `Documentation of APIs that may help (library \`${input.library.name}\`):\n${docsBlock(input.apis)}\n\n` +
        'Write one small, self-contained Python experiment (a playground script, not the final solution) that imports what it needs, ' +
        "uses the task's example inputs, calls the APIs above to carry out the current subtask, reuses what the earlier experiments learned, " +
        'and prints the values and object formats you want to find out about. Reply with one ```python code block.',
    },
  ];
}

export function debugMessages(input: {
  problem: SweepProblem;
  library: ApiLibrary;
  subtask: string;
  code: string;
  observation: Observation;
  apis: readonly ApiDoc[];
  observationChars: number;
}): ChatMessage[] {
  return [
    { role: 'system', content: EXPLORER },
    {
      role: 'user',
      content:
        `This experiment for the subtask "${input.subtask}" (task below) failed.\n\n${pythonBlock(input.code)}\n\n` +
        `Observation:\n${formatObservation(input.observation, input.observationChars)}\n\n` +
        `Task:\n${input.problem.prompt.trim()}\n\n` +
        exampleInputs(input.problem) +
        `Documentation of APIs that may help (library \`${input.library.name}\`):\n${docsBlock(input.apis)}\n\n` +
        'Find the cause and write a corrected, self-contained experiment that runs and prints what it learns. Reply with one ```python code block.',
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// 4. Final solution

/**
 * The final solution's request. The only ExploraCoder step a cell's prompt template shapes: its
 * `system` replaces this step's system message ('' sends none), its `instruction` the closing
 * sentence that asks for the code; the requirement, trace and docs stay as they are. Without a
 * template, the paper's prompt byte for byte.
 */
export function finalMessages(input: {
  problem: SweepProblem;
  library: ApiLibrary;
  /** Without exploration (ablation): the plan stands in for the trace. */
  subtasks: readonly string[];
  experiences: readonly Experience[] | null;
  docs: readonly ApiDoc[];
  observationChars: number;
  template?: PromptTemplate;
}): ChatMessage[] {
  const trace =
    input.experiences === null
      ? `A plan for the task:\n${formatPlan([...input.subtasks])}\n\n`
      : `Your exploration trace (subtask, experiment, observation):\n\n${experienceBlock(input.experiences, input.observationChars)}\n\n` +
        'The subtasks were only aids for exploring: reorganize the API calls as the task needs and add your own glue code.\n\n';
  const system = stepSystemMessage(
    `You are a senior Python programmer. You have just explored the library \`${input.library.name}\`, which is new to you, by running experiments with it.`,
    input.template,
  );
  const instruction =
    input.template?.instruction ??
    (isStatementTask(input.problem)
      ? 'Now write the whole script, its last line finished, in one ```python code block.'
      : `Now write the complete function \`${input.problem.entry_point}\` (with its signature and the imports it needs) in one \`\`\`python code block.`);
  return [
    ...(system === null ? [] : [{ role: 'system' as const, content: system }]),
    {
      role: 'user',
      content:
        `Requirement (${isStatementTask(input.problem) ? 'an unfinished script' : 'an incomplete function'}):\n${pythonBlock(input.problem.prompt)}\n\n` +
        exampleInputs(input.problem) +
        trace +
        `API documentation:\n${docsBlock(input.docs)}\n\n` +
        instruction,
    },
  ];
}
