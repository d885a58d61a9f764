/**
 * The generated Python is checked by the real interpreter, in one process per test: the canonical
 * solution passes the test, the prompt is valid Python whose docstring examples are exact literals,
 * and Python applying canonical_pipeline itself gives our outputs (JS semantics == Python's).
 */
import { describe, expect, it } from 'vitest';
import { generateTask } from '../../domain/pbe/generate.js';
import { applyStep, OPERATIONS, renderStep, type PipelineStep } from '../../domain/pbe/operations.js';
import type { PbeTask } from '../../domain/pbe/render.js';
import { PARAM_SETS, runPythonJson } from './support.js';

const TASKS_PER_SET = 50;

const CHECK_TASKS_PY = String.raw`
import ast, json, sys, warnings
warnings.simplefilter('error')  # e.g. an invalid escape in the prompt's docstring would warn
failures = []
for t in json.load(sys.stdin):
    tid = t['task_id']
    try:
        code = t['canonical_solution'] + '\n' + t['test'] + '\ncheck(apply_pipeline)\n'
        exec(compile(code, tid, 'exec'), {})

        pairs = t['examples'] + t['tests']
        for p in pairs:
            out = p['input']
            for step in t['canonical_pipeline']:
                out = getattr(out, step['method'])(*step['args'])
            if out != p['output']:
                failures.append(f"{tid}: python gives {out!r} for {p['input']!r}, row says {p['output']!r}")

        ns = {}
        exec(compile(t['prompt'], tid + ':prompt', 'exec'), ns)
        fn = ns[t['entry_point']]
        try:
            fn('x')
            failures.append(f'{tid}: prompt stub did not raise')
        except NotImplementedError:
            pass
        # The docstring examples, read from the source text, are exact literals of the examples.
        shown = []
        for line in t['prompt'].split('\n'):
            if line.strip().startswith('>>> '):
                expr = ast.parse(line.strip()[4:], mode='eval').body
                shown.append({'input': ast.literal_eval(expr.left.args[0]), 'output': ast.literal_eval(expr.comparators[0])})
        if shown != t['examples']:
            failures.append(f'{tid}: prompt examples {shown!r} != {t["examples"]!r}')
        # Nothing in an example ended the docstring early: the function body is exactly the docstring
        # and the raise, and the docstring holds one example line per example.
        fdef = [n for n in ast.parse(t['prompt']).body if isinstance(n, ast.FunctionDef)][0]
        body_kinds = [type(n).__name__ for n in fdef.body]
        if body_kinds != ['Expr', 'Raise'] or fn.__doc__.count('>>> ') != len(t['examples']):
            failures.append(f'{tid}: prompt body {body_kinds}, docstring {fn.__doc__!r}')
    except Exception as e:
        failures.append(f'{tid}: {type(e).__name__}: {e}')
print(json.dumps(failures))
`;

describe('generated tasks under real Python', () => {
  it('canonical solutions pass their tests; prompts parse; Python semantics equal ours', () => {
    const tasks: PbeTask[] = [];
    for (const [name, params] of PARAM_SETS) {
      for (let index = 0; index < TASKS_PER_SET; index++) {
        const task = generateTask(params, index);
        tasks.push({ ...task, task_id: `${name}/${task.task_id}` });
      }
    }
    expect(tasks.length).toBeGreaterThanOrEqual(300);
    // The sample does exercise double-quoted reprs (strings with ') and escaped backslashes.
    expect(tasks.some((t) => t.test.includes('candidate("'))).toBe(true);
    expect(tasks.some((t) => t.prompt.includes('\\\\'))).toBe(true);
    expect(runPythonJson<string[]>(CHECK_TASKS_PY, tasks)).toEqual([]);
  });

  it('a failing check is reported (the harness can fail)', () => {
    const task = generateTask(PARAM_SETS[0]![1], 0);
    const broken = { ...task, canonical_solution: task.canonical_solution.replace('    return s', '    return s + "!"') };
    const failures = runPythonJson<string[]>(CHECK_TASKS_PY, [broken]);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/AssertionError/);
  });

  it('each operation matches Python on corner cases, applied and rendered', () => {
    const strings = ['', 'a', 'abcabc', 'aaaa', "it's", 'a\\b', ' pad ', '$&$1$$', 'ß', 'ΑΣ', 'İx', 'ﬁ', 'a😀b', 'Mixed Case'];
    const steps: PipelineStep[] = [
      { method: 'replace', args: ['', '-'] },
      { method: 'replace', args: ['a', ''] },
      { method: 'replace', args: ['aa', 'a'] },
      { method: 'replace', args: ['a', '$&'] },
      { method: 'replace', args: ['$&', '$1'] },
      { method: 'replace', args: ['$', '$$'] },
      { method: 'replace', args: ['\\', "'"] },
      { method: 'replace', args: ['😀', 'x'] },
      { method: 'upper', args: [] },
      { method: 'lower', args: [] },
      { method: 'strip', args: [''] },
      { method: 'strip', args: ['a'] },
      { method: 'strip', args: ['ab'] },
      { method: 'strip', args: [' $'] },
      { method: 'strip', args: ["'\\"] },
      { method: 'strip', args: ['a😀'] },
    ];
    expect(new Set(steps.map((s) => s.method))).toEqual(new Set(OPERATIONS.map((op) => op.name)));
    const cases = strings.flatMap((s) => steps.map((step) => ({ s, step, statement: renderStep(step) })));
    // Python runs the rendered statement itself, so the rendering is checked along with the semantics.
    const python = runPythonJson<string[]>(
      'import json, sys\nout = []\nfor c in json.load(sys.stdin):\n    ns = {"s": c["s"]}\n    exec(c["statement"], ns)\n    out.append(ns["s"])\nprint(json.dumps(out))',
      cases,
    );
    const mismatches = cases.map((c, i) => ({ ...c, ours: applyStep(c.s, c.step), python: python[i] })).filter((c) => c.ours !== c.python);
    expect(mismatches).toEqual([]);
  });
});
