/**
 * Adding a task family is its folder plus one line in the registry (and one in ids.ts, since its
 * stored problems name it): a throwaway family (test/support/words-family.ts, written with
 * defineFamily) is added here exactly so, and runs through the generic paths a sweep and
 * evaluate.ts use: the config's entry (unknown keys named), loading (file, line and field named),
 * the stored problem read back, prompts, program assembly, a real sandbox run and its score. Its
 * stored-problem pins (test/support/words-family-pins.ts, what its folder's pins.ts would hold) are
 * found and checked by the same code that checks every family's (test/support/stored-pins.ts).
 */
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';

// The two lines a new family adds: its id in ids.ts, its definition in the registry.
vi.mock('../../domain/families/ids.js', async (importOriginal) => {
  const ids = await importOriginal<typeof import('../../domain/families/ids.js')>();
  const FAMILY_IDS = [...ids.FAMILY_IDS, 'words'] as const;
  return { ...ids, FAMILY_IDS, FamilyIdSchema: z.enum(FAMILY_IDS) };
});
vi.mock('../../domain/families/registry.js', async (importOriginal) => {
  const registry = await importOriginal<typeof import('../../domain/families/registry.js')>();
  const { wordsFamily } = await import('../support/words-family.js');
  return { ...registry, ...registry.createRegistry({ ...registry.FAMILIES, words: wordsFamily as never }) };
});

const { SweepProblemSchema } = await import('../../domain/datasets/problems.js');
const { parseJsonl } = await import('../../domain/datasets/jsonl.js');
const { familyOf } = await import('../../domain/families/registry.js');
const { chatUserMessage, directRequestBody } = await import('../../methods/direct/request.js');
const { parseSweepConfig } = await import('../../domain/sweep/config.js');
const { referenceOf } = await import('../../domain/sweep/results.js');
const { SandboxPool } = await import('../../infra/sandbox/pool.js');
const { memoryReferenceOutputs } = await import('../../infra/referenceOutputs.js');
const { scoreAnswers } = await import('../../infra/scoring/scoreAnswers.js');
const { loadEvaluateProblems } = await import('../../scripts/lib/evaluate-problems.js');
const { evaluateFlags } = await import('../../domain/families/registry.js');
const { evaluateCommand, familyOptionValues } = await import('../../scripts/lib/evaluate-cli.js');
const { minimalSweepConfig, sweepConfigIssues } = await import('../support/sweep-config.js');
const { allFamilies } = await import('../../domain/families/registry.js');
const { missingPins, pinnedHashes, pinsInFolder, storedPinsOf } = await import('../support/stored-pins.js');

const ROWS = [
  { id: 'w/0', word: 'abc', method: 'upper' },
  { id: 'w/1', word: 'Hello World', method: 'swapcase' },
];
const rowsText = ROWS.map((r) => JSON.stringify(r) + '\n').join('');
const withDatasets = (datasets: unknown[]) => ({ ...minimalSweepConfig(), datasets });
const sandboxes = new SandboxPool({ concurrency: 2 });

afterAll(() => sandboxes.close());

describe('a family added with its folder and one registry line', () => {
  it("a sweep config's dataset entry: validated by the family's schema, unknown keys named with the family's own", () => {
    const config = parseSweepConfig(withDatasets([{ name: 'w', family: 'words', path: 'words.jsonl' }]));
    expect(config.datasets[0]).toEqual({ name: 'w', family: 'words', path: 'words.jsonl', repeat: 1 });
    expect(sweepConfigIssues(withDatasets([{ name: 'w', family: 'words', path: 'words.jsonl', repet: 2 }]))).toEqual([
      { path: 'datasets[0].repet', message: 'unknown key (did you mean repeat?)' },
    ]);
    expect(sweepConfigIssues(withDatasets([{ name: 'w', family: 'word', path: 'words.jsonl' }]))[0]!.message).toMatch(
      /, words, got "word"$/,
    );
  });

  it('loads rows naming the file, the line and the field of a bad one; the stored problem reads back with its payload', () => {
    const entry = parseSweepConfig(withDatasets([{ name: 'w', family: 'words', path: 'words.jsonl', repeat: 2 }])).datasets[0]!;
    const family = familyOf(entry);
    expect(family.files(entry)).toEqual({ rows: { path: 'words.jsonl', field: 'path' } });
    const bad = rowsText + JSON.stringify({ id: 'w/2', word: 'x', method: 'reverse' }) + '\n';
    expect(() => family.load({ entry, texts: { rows: bad }, sources: { rows: 'words.jsonl' } })).toThrow(/^words\.jsonl:3: method: /);
    const { problems } = family.load({ entry, texts: { rows: rowsText }, sources: { rows: 'words.jsonl' } });
    // Stored as prepareSweepDataset stores it: the payload flat in the problem's JSON.
    const stored = problems.map((p) => JSON.stringify(p) + '\n').join('');
    expect(JSON.parse(stored.split('\n')[0]!)).toMatchObject({ family: 'words', task_id: 'w/0', word: 'abc', method: 'upper', repeat: 2 });
    const read = parseJsonl(stored, SweepProblemSchema, 'problems.jsonl').map((r) => r.row);
    expect(read).toEqual(problems);
    expect(referenceOf(read[0]!)).toBe('assert transform("abc") == ("abc" * 2).upper(), transform("abc")\n\n');
    // A problem without the family's payload is refused by name.
    expect(() => family.tests({ ...read[0]!, word: undefined } as never, null)).toThrow(/^task w\/0: not a words problem \(word: /);
  });

  it("prompts through the family, as every method's requests are made", () => {
    const entry = parseSweepConfig(withDatasets([{ name: 'w', family: 'words', path: 'words.jsonl' }])).datasets[0]!;
    const [problem] = familyOf(entry).load({ entry, texts: { rows: rowsText }, sources: { rows: 'words.jsonl' } }).problems;
    const sampling = { model: 'x', temperature: 0, top_p: 1, max_tokens: 64, seed: 1 };
    expect(directRequestBody(problem!, 'completions', sampling, 0)).toMatchObject({ prompt: problem!.prompt });
    expect(chatUserMessage(problem!)).toBe(
      `Write the Python function \`transform\`. Reply with it in one \`\`\`python code block.\n\n\`\`\`python\n${problem!.prompt}\`\`\`\n`,
    );
  });

  it('evaluate.ts recognises its rows, assembles programs that run in the real sandbox, and scores them', async () => {
    const loaded = loadEvaluateProblems({ text: rowsText, source: 'words.jsonl' });
    expect(loaded).toMatchObject({ family: 'words', form: 'completion' });
    // The path a sweep's shard and evaluate.ts score saved answers by (infra/scoring/scoreAnswers.ts).
    const run = async (completion: string) =>
      (
        await scoreAnswers(
          {
            problems: loaded.problems,
            answers: loaded.problems.map((_, taskIndex) => ({
              taskIndex,
              sampleIndex: 0,
              generation: { raw: completion, code: completion, api: 'completions' as const },
            })),
            k: [1],
            cell: { dataset: 'w', n_samples: 1 },
            runnerFor: (language, runtime, dirs) => sandboxes.forLanguage(language, runtime, dirs),
            references: memoryReferenceOutputs(),
            timeoutMs: 10_000,
            inFlight: 2,
          },
          'now',
        )
      ).scored.map((s) => s.record);
    const right = await run(
      '    return {"upper": s.upper, "swapcase": s.swapcase}[METHOD]()\n'.replace('[METHOD]', '["upper" if s.islower() else "swapcase"]'),
    );
    expect(right.map((s) => s.passed)).toEqual([true, true]);
    const wrong = await run('    return s\n');
    expect(wrong.map((r) => [r.status, r.passed, r.success])).toEqual([
      ['failed', false, true],
      ['failed', false, true],
    ]);
  });

  it("its stored-problem pins are found as a folder's are and checked as every family's; without them the check names the file", async () => {
    const wordsPins = fileURLToPath(new URL('../support/words-family-pins.ts', import.meta.url));
    const locate = (family: string) => (family === 'words' ? wordsPins : pinsInFolder(family));
    const ids = allFamilies().map((f) => f.id as string);
    expect(ids).toContain('words');
    expect(missingPins(ids, locate)).toEqual([]);
    expect(missingPins(ids)).toEqual([
      'family "words" has no stored-problem pins: domain/families/words/pins.ts must export `storedPins: StoredProblemPin[]` (domain/families/pins.ts)',
    ]);
    const pins = await storedPinsOf('words', locate);
    const actual = pins.map((pin) => pinnedHashes('words', pin));
    if (process.env.PRINT_PINNED) console.log(JSON.stringify(actual));
    expect(actual).toEqual(pins.map(({ stored, behaviour }) => ({ stored, behaviour })));
  });

  it("its option, declared once in its folder: the entry's field and evaluate.ts's flag, in --help, parsed and refused alike", () => {
    const command = evaluateCommand(evaluateFlags());
    expect(command.helpInformation()).toMatch(/--repeat <n>\s+words only: how many times each word is repeated/);
    command.exitOverride().parse(['--samples', 's.jsonl', '--repeat', '3'], { from: 'user' });
    const options = familyOptionValues(evaluateFlags(), command.opts());
    expect(options).toEqual({ repeat: '3' });
    const loaded = loadEvaluateProblems({ text: rowsText, source: 'words.jsonl', options });
    expect(loaded.problems.map((p) => familyOf(p).referenceSolution(p))).toEqual([
      'def transform(s):\n    return (s * 3).upper()\n',
      'def transform(s):\n    return (s * 3).swapcase()\n',
    ]);
    // Absent, the flag is the field's default.
    const plain = loadEvaluateProblems({ text: rowsText, source: 'words.jsonl', options: {} });
    expect(plain.problems.map((p) => familyOf(p).referenceSolution(p))[0]).toBe('def transform(s):\n    return (s * 1).upper()\n');
    // One schema, one message: the config names the field, evaluate.ts the flag.
    const [issue] = sweepConfigIssues(withDatasets([{ name: 'w', family: 'words', path: 'words.jsonl', repeat: 0 }]));
    expect(issue!.path).toBe('datasets[0].repeat');
    expect(() => familyOptionValues(evaluateFlags(), { repeat: '0' })).toThrow(`--repeat: ${issue!.message}`);
    expect(() => loadEvaluateProblems({ text: rowsText, source: 'words.jsonl', options: { repeat: '0' } })).toThrow(
      `--repeat: ${issue!.message}`,
    );
    expect(() => familyOptionValues(evaluateFlags(), { repeat: 'x' })).toThrow(/^--repeat: /);
    const mbpp =
      '{"task_id": 1, "text": "t", "code": "def f():\\n    return 1", "test_list": ["assert f() == 1"], "test_setup_code": "", "challenge_test_list": []}\n';
    expect(() => loadEvaluateProblems({ text: mbpp, source: 'mbpp.jsonl', options })).toThrow(
      '--repeat: only words problems read it, and mbpp.jsonl is read as mbpp',
    );
  });
});
