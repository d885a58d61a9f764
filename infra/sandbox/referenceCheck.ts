/**
 * A dataset's own solutions run through the sandbox the way samples run: the family's solution and
 * tests, put together by the language, through the library's runtime. Datasets ship references
 * that fail (a typo in a test, a missing import): the check lists them by task id, so a reader of
 * pass@k knows which tasks no answer could pass.
 */
import type { DatasetLibrary } from '../../domain/apidocs/library.js';
import { prepareProgram } from '../../domain/apidocs/runtime.js';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import { familyOf, languageOf } from '../../domain/families/registry.js';
import { mapLimit } from '../mapLimit.js';
import type { SandboxPool } from './pool.js';
import { memoryReferenceOutputs, ReferenceOutputs, ReferenceOutputsError, type ReferenceOutputsStore } from '../referenceOutputs.js';

export interface ReferenceFailure {
  task_id: string;
  status: string;
  message: string;
}

export interface ReferenceCheck {
  checked: number;
  passed: number;
  failures: ReferenceFailure[];
  /** Tasks whose dataset has no solution for them. */
  without: string[];
}

export async function checkReferences(
  problems: readonly SweepProblem[],
  library: DatasetLibrary | undefined,
  sandboxes: SandboxPool,
  opts: { timeoutS: number; onDone?: (done: number) => void; references?: ReferenceOutputsStore },
): Promise<ReferenceCheck> {
  const runtime = library?.library.runtime;
  const executor = await sandboxes.forRuntime(runtime);
  // Families checked against their solution's outputs: the outputs are computed (or read from the
  // store) first, then the solution is checked against them as a sample would be.
  const references = new ReferenceOutputs(opts.references ?? memoryReferenceOutputs(), (request) => executor.run(request));
  const failures: ReferenceFailure[] = [];
  const without: string[] = [];
  let passed = 0;
  let done = 0;
  await mapLimit([...problems], executor.concurrency * 2, async (problem) => {
    // A task scored from its text has nothing to run: like a task without a reference, it is not checked.
    const solution = familyOf(problem).checking(problem).kind === 'text' ? null : familyOf(problem).referenceSolution(problem);
    if (solution === null) {
      without.push(problem.task_id);
      return;
    }
    const family = familyOf(problem);
    let reference: string | null;
    try {
      reference = await references.for(problem, family.checking(problem));
    } catch (error) {
      if (!(error instanceof ReferenceOutputsError)) throw error;
      failures.push({ task_id: problem.task_id, status: 'error', message: error.message.slice(0, 500) });
      opts.onDone?.(++done);
      return;
    }
    const prepared = prepareProgram(
      runtime,
      { solution: family.embedSolution(problem, solution), rest: family.tests(problem, reference) },
      languageOf(problem).assemble,
    );
    if (!prepared.ok) {
      failures.push({ task_id: problem.task_id, status: 'error', message: `${prepared.error.type}: ${prepared.error.message}` });
    } else {
      // Each reference runs where its samples run: its language's runner (HumanEvalPack's JavaScript on Node).
      const runner = await sandboxes.forLanguage(languageOf(problem).id, runtime);
      const result = await runner.run({
        id: `reference/${problem.task_id}`,
        program: prepared.program,
        limits: family.limits(problem, reference, Math.round(opts.timeoutS * 1000)),
      });
      if (family.score(problem, result, reference).passed) passed++;
      else
        failures.push({
          task_id: problem.task_id,
          status: result.status,
          message: result.exception ? `${result.exception.type}: ${result.exception.message}`.slice(0, 500) : result.status,
        });
    }
    opts.onDone?.(++done);
  });
  const order = new Map(problems.map((p, i) => [p.task_id, i]));
  failures.sort((a, b) => order.get(a.task_id)! - order.get(b.task_id)!);
  return { checked: problems.length - without.length, passed, failures, without };
}
