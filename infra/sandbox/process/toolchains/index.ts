/**
 * The process-run languages' toolchains, by language id (MultiPL-E's ids). One module per
 * language; processExecutor.ts runs any of them (contract.ts says what a toolchain provides).
 */
import type { Toolchain } from '../contract.js';
import { cppToolchain } from './cpp.js';
import { goToolchain } from './go.js';
import { javaToolchain } from './java.js';
import { javascriptToolchain } from './javascript.js';
import { rustToolchain } from './rust.js';
import { typescriptToolchain } from './typescript.js';
import { warmJavascriptToolchain, warmCppToolchain, warmGoToolchain, warmJavaToolchain, warmRustToolchain, warmTypescriptToolchain } from '../../warm/toolchains.js';

export const TOOLCHAINS = {
  js: warmJavascriptToolchain,
  // The warm toolchains (infra/sandbox/warm/toolchains.ts): the plain modules with a faster
  // compile step (or, for js, a shared-process run a runner may be asked to use) and the same
  // outcomes (docs/benchmarks.md#multipl-e-languages).
  ts: warmTypescriptToolchain,
  'go_test.go': warmGoToolchain,
  rs: warmRustToolchain,
  java: warmJavaToolchain,
  cpp: warmCppToolchain,
} as const satisfies Record<string, () => Toolchain>;

/** The plain modules, MultiPL-E's own commands in the sandbox (the warm toolchains' fallback and baseline). */
export const PLAIN_TOOLCHAINS = {
  js: javascriptToolchain,
  ts: typescriptToolchain,
  'go_test.go': goToolchain,
  rs: rustToolchain,
  java: javaToolchain,
  cpp: cppToolchain,
} as const satisfies Record<string, () => Toolchain>;

export type ProcessLanguageId = keyof typeof TOOLCHAINS;

export function isProcessLanguage(id: string): id is ProcessLanguageId {
  return Object.prototype.hasOwnProperty.call(TOOLCHAINS, id);
}

export function toolchainFor(id: ProcessLanguageId): Toolchain {
  return TOOLCHAINS[id]();
}
