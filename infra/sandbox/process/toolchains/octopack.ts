/**
 * What code_eval_octopack's environment (bigcode's HumanEvalPack evaluator, after CodeGeeX's
 * HumanEval-X one) gives programs beyond the plain toolchains, installed on demand by
 * scripts/install-toolchains.sh into .tools/octopack/ and mounted read-only:
 *   - rust/: the crates of its Cargo project (rand 0.4, regex 1, md5 0.7: HumanEvalPack's Rust
 *     declarations `use` them), built once by cargo with this machine's rustc from the pinned
 *     infra/sandbox/octopack/rust/Cargo.lock, so that a sandboxed rustc links them offline;
 *   - go/: testify (HumanEvalPack's Go tests import github.com/stretchr/testify/assert) in a module
 *     cache fetched through the Go module proxy from the pinned infra/sandbox/octopack/go/go.mod and go.sum,
 *     and a Go build cache of the standard library and testify compiled, for `go test` offline.
 * A program that needs neither runs exactly as before.
 */
import { existsSync, readdirSync } from 'node:fs';
import type { ToolchainPart } from '../../../../domain/families/types.js';
import { join } from 'node:path';
import { REPO_ROOT, TOOLS_DIR } from './common.js';

export const OCTOPACK_DIR = join(TOOLS_DIR, 'octopack');
export const OCTOPACK_INSTALL = 'run `bash scripts/install-toolchains.sh rs go_test.go cpp` (or `npm run setup -- --languages ...`)';

/** The crates' build: target/debug/deps holds their rlibs (and their own dependencies'). */
export const RUST_CRATES_DEPS = join(OCTOPACK_DIR, 'rust', 'target', 'debug', 'deps');
export const RUST_CRATES_IN_SANDBOX = '/opt/octopack-crates';
/** The crates a HumanEvalPack Rust program may name, as its Cargo project has them. */
const CRATES = ['rand', 'regex', 'md5'] as const;

/** rustc's `-L`/`--extern` flags for the crates (sandbox paths), or null when they are not installed. */
export function rustCrateFlags(): string[] | null {
  if (!existsSync(RUST_CRATES_DEPS)) return null;
  const files = readdirSync(RUST_CRATES_DEPS);
  const flags = ['-L', `dependency=${RUST_CRATES_IN_SANDBOX}`];
  for (const crate of CRATES) {
    const rlib = files.find((f) => f.startsWith(`lib${crate}-`) && f.endsWith('.rlib'));
    if (!rlib) return null;
    flags.push('--extern', `${crate}=${RUST_CRATES_IN_SANDBOX}/${rlib}`);
  }
  return flags;
}

/** A program whose tests are #[test] functions: run as `cargo test` runs a binary's (code_eval_octopack's Rust). */
export function isRustTestHarness(program: string): boolean {
  return /#\s*\[\s*test\s*\]/.test(program);
}

export const GO_OCTOPACK_DIR = join(OCTOPACK_DIR, 'go');
/** Module cache (testify and its dependencies) and build cache (std and testify compiled), both read-only in the sandbox. */
export const GO_MODCACHE = join(GO_OCTOPACK_DIR, 'modcache');
export const GO_TESTIFY_CACHE = join(GO_OCTOPACK_DIR, 'gocache');
export const GO_TESTIFY_STAMP = join(GO_TESTIFY_CACHE, '.explora-warm-testify');
export const GO_TESTIFY_CACHE_IN_SANDBOX = '/opt/octopack-gocache';
/** The pinned module files (go.mod, go.sum) a testify program's build directory gets. */
export const GO_MODULE_FILES = join(REPO_ROOT, 'infra', 'sandbox', 'octopack', 'go');
/** The pinned Cargo project the crates are built from. */
export const RUST_CARGO_PROJECT = join(REPO_ROOT, 'infra', 'sandbox', 'octopack', 'rust');

/** A Go program that imports testify (HumanEvalPack's tests). */
export function importsTestify(program: string): boolean {
  return program.includes('"github.com/stretchr/testify/');
}

/** What of a toolchain part is not installed (named for a person), or null when it is. */
export function toolchainPartMissing(part: ToolchainPart): string | null {
  switch (part) {
    case 'boost-headers':
      return existsSync('/usr/include/boost/any.hpp') ? null : "boost's headers (/usr/include/boost/any.hpp, Debian's libboost-dev)";
    case 'go-testify':
      return existsSync(GO_TESTIFY_STAMP) && existsSync(GO_MODCACHE) ? null : `testify's module and build caches (${GO_OCTOPACK_DIR})`;
    case 'rust-crates':
      return rustCrateFlags() ? null : `the crates rand, regex and md5 built for this rustc (${RUST_CRATES_DEPS})`;
  }
}
