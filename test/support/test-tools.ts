/**
 * vitest global setup: the tools the suite runs with are installed by the test command's set-up
 * (`npm test` runs `npm run setup -- --tests` first: every MultiPL-E toolchain the project installs,
 * the tests' Python and Chromium, beside what `npm start` needs). A run started otherwise (`npx
 * vitest run FILE`) is told here, once, what is missing and the command that installs it, instead
 * of failing test by test. Only presence is checked (files, commands on PATH), in milliseconds;
 * each tool's own check says more when a test uses it.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { stackPaths } from '../../stack/local-stack.js';

export const TEST_SETUP_COMMAND = 'npm run setup -- --tests';

/** The commands the set-up installs from Debian packages (scripts/install-toolchains.sh), by language. */
const INSTALLED_COMMANDS: ReadonlyArray<[string, string]> = [
  ['lua', 'lua'],
  ['rb', 'ruby'],
  ['php', 'php'],
  ['pl', 'perl'],
  ['r', 'Rscript'],
  ['rkt', 'racket'],
  ['d', 'ldc2'],
  ['cs', 'mcs'],
  ['cs', 'mono'],
];

function onPath(command: string, envPath: string): boolean {
  return envPath.split(path.delimiter).some((dir) => dir && existsSync(path.join(dir, command)));
}

/** What the suite needs that is not in place, each named for a person. */
export function missingTestTools(
  toolsDir: string = stackPaths().toolsDir,
  envPath: string = process.env.PATH ?? '',
  chromium = '/usr/bin/chromium',
): string[] {
  const missing: string[] = [];
  const file = (relative: string, what: string) => {
    if (!existsSync(path.join(toolsDir, relative))) missing.push(`${what} (${path.join(toolsDir, relative)})`);
  };
  file('py/bin/temporal', 'the Temporal CLI');
  file('py/bin/weed', 'SeaweedFS');
  file('sandbox-python/bin/python', "the sandbox's Python");
  file('datasets/HumanEval.jsonl.gz', 'HumanEval');
  file('test-python/bin/python', "the tests' Python");
  if (onPath('javac', envPath)) file('multiple/javatuples-1.2.jar', "Java's javatuples");
  for (const [language, command] of INSTALLED_COMMANDS)
    if (!onPath(command, envPath)) missing.push(`language ${language}'s ${command} (not on PATH)`);
  if (onPath('java', envPath) && !onPath('scalac', envPath)) missing.push("language scala's scalac (not on PATH)");
  // HumanEvalPack's parts of the toolchains (infra/sandbox/process/toolchains/octopack.ts).
  if (onPath('go', envPath)) file('octopack/go/gocache/.explora-warm-testify', "HumanEvalPack's Go testify");
  if (onPath('rustc', envPath)) file('octopack/rust/target/debug/deps', "HumanEvalPack's Rust crates");
  if (onPath('g++', envPath) && !existsSync('/usr/include/boost/any.hpp')) missing.push("HumanEvalPack's C++ boost headers (libboost-dev)");
  if (!existsSync(chromium)) missing.push(`Chromium (${chromium})`);
  return missing;
}

/** Throws, naming each missing tool and the command that installs them, when any is missing. */
export function requireTestTools(missing: readonly string[] = missingTestTools()): void {
  if (missing.length === 0) return;
  throw new Error(
    `the tests need tools that are not installed:\n${missing.map((m) => `  ${m}`).join('\n')}\n` +
      `Install them with \`${TEST_SETUP_COMMAND}\` (\`npm test\` runs it first); no test ran.`,
  );
}

export default function setup(): void {
  requireTestTools();
}
