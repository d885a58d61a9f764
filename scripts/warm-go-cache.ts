/**
 * Builds the read-only Go build cache the sandbox's Go compiles use (.tools/go-cache: the whole
 * standard library, compiled and vetted), once per machine. Called by scripts/install-toolchains.sh;
 * the Go runner also builds it on first use when it is missing.
 */
import { GO_CACHE_DIR, warmGoCache } from '../infra/sandbox/process/toolchains/go.js';

const started = performance.now();
warmGoCache().then(
  () => process.stderr.write(`warm-go-cache: ${GO_CACHE_DIR} ready (${((performance.now() - started) / 1000).toFixed(1)} s)\n`),
  (error: unknown) => {
    process.stderr.write(
      `warm-go-cache: could not build Go's standard library into ${GO_CACHE_DIR}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
