/**
 * What the tasks of a sweep need from the sandbox (TaskFamily.requirements: DS-1000's libraries, Spider's databases,
 * HumanEvalPack's toolchain parts),
 * checked before anything starts against the interpreter the sandbox runs programs with: a task
 * whose library is missing would only fail, sample after sample. With `--worker external` the
 * workers' machines are not this one: the check is of this machine's sandbox interpreter.
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import type { SweepProblem } from '../../domain/datasets/problems.js';
import type { Requirement, ToolchainPart } from '../../domain/families/types.js';
import { toolchainPartMissing } from '../../infra/sandbox/process/toolchains/octopack.js';
import { resolveSandboxPython } from '../../infra/sandbox/python.js';

// find_spec of a submodule (`torchdata.datapipes`) imports its parents, and raises when one is missing.
const FIND_SPECS = [
  'import importlib.util, json, sys',
  'def missing(m):',
  '    try:',
  '        return importlib.util.find_spec(m) is None',
  '    except ModuleNotFoundError:',
  '        return True',
  'print(json.dumps([m for m in sys.argv[1:] if missing(m)]))',
].join('\n');

/** The Python modules of `modules` that `python` cannot import. */
export function missingPythonModules(modules: readonly string[], python = resolveSandboxPython()): string[] {
  if (modules.length === 0) return [];
  const out = execFileSync(python, ['-c', FIND_SPECS, ...modules], { encoding: 'utf8', timeout: 60_000 });
  return JSON.parse(out) as string[];
}

/** Why the datasets' tasks cannot run in this sandbox (each missing module or file: which tasks, how to get it), or null. */
export function requirementsProblem(
  datasets: ReadonlyArray<{ name: string; family: string; problems: readonly SweepProblem[] }>,
  requirementsOf: (problem: SweepProblem) => readonly Requirement[],
  python = resolveSandboxPython(),
  partMissing: (part: ToolchainPart) => string | null = toolchainPartMissing,
): string | null {
  const needs = new Map<string, { requirement: Requirement; tasks: number; datasets: Set<string> }>();
  for (const d of datasets) {
    for (const p of d.problems) {
      for (const r of requirementsOf(p)) {
        const key = `${r.kind === 'file' ? r.path : r.kind === 'toolchain-part' ? r.part : r.module}\n${r.why}`;
        const need = needs.get(key) ?? { requirement: r, tasks: 0, datasets: new Set<string>() };
        need.tasks++;
        need.datasets.add(`datasets[${d.name}] (family ${d.family})`);
        needs.set(key, need);
      }
    }
  }
  const modules = [...needs.values()].flatMap((n) => (n.requirement.kind === 'python-module' ? [n.requirement.module] : []));
  const missing = new Set(missingPythonModules([...new Set(modules)], python));
  const lines = [...needs.values()].flatMap((n) => {
    const r = n.requirement;
    const where = `${[...n.datasets].join(', ')}: ${n.tasks} ${r.why.replace(/ tasks$/, '')} task(s)`;
    if (r.kind === 'file')
      return isReadableFile(r.path) ? [] : [`${where} need the file ${r.path}, which is missing or unreadable; check ${r.from}`];
    if (r.kind === 'toolchain-part') {
      const missingPart = partMissing(r.part);
      return missingPart ? [`${where} need ${missingPart}, which is not installed; install it with: ${r.install}`] : [];
    }
    if (!missing.has(r.module)) return [];
    return [`${where} need the Python module ${r.module}, which the sandbox's Python (${python}) lacks; install it with: ${r.install}`];
  });
  return lines.length ? lines.join('\n') : null;
}

function isReadableFile(path: string): boolean {
  try {
    accessSync(path, constants.R_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
