/**
 * Toolchain probes (infra/sandbox/process/toolchains/common.ts) run without blocking, so that the
 * checks of a sweep's languages run side by side: two probes that each wait for the other to have
 * started both answer, which one run after the other could not (the first would give up waiting).
 * A probe asked twice at once runs once; the blocking variant shares its answer.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { firstFailed, probeVersion, probeVersionSync } from '../../infra/sandbox/process/toolchains/common.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'explora-probes-'));
  dirs.push(dir);
  return dir;
}

/** A stand-in compiler that marks that it started, then waits (up to 10 s) for `other`'s mark. */
function rendezvous(dir: string, name: string, other: string): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    `#!/bin/sh
echo started >> ${join(dir, `${name}.calls`)}
touch ${join(dir, `${name}.started`)}
i=0
while [ ! -e ${join(dir, `${other}.started`)} ]; do
  i=$((i + 1)); [ $i -gt 200 ] && { echo "${name}: ${other} never started" >&2; exit 1; }
  sleep 0.05
done
echo '${name} 1.0'
`,
  );
  chmodSync(file, 0o755);
  return file;
}

describe('toolchain probes', () => {
  it('run side by side: two probes that wait for each other both answer', async () => {
    const dir = tempDir();
    const a = rendezvous(dir, 'a', 'b');
    const b = rendezvous(dir, 'b', 'a');
    const [first, second] = await Promise.all([
      probeVersion(a, ['--version'], 'a', 'install a'),
      probeVersion(b, ['--version'], 'b', 'install b'),
    ]);
    expect(first).toEqual({ ok: true, version: 'a 1.0' });
    expect(second).toEqual({ ok: true, version: 'b 1.0' });
    expect(firstFailed([first, second])).toEqual(first);
  }, 30_000);

  it('a probe asked twice at once runs once, and the blocking variant reuses its answer', async () => {
    const dir = tempDir();
    const calls = join(dir, 'calls');
    const compiler = join(dir, 'compiler');
    writeFileSync(compiler, `#!/bin/sh\necho probed >> ${calls}\nsleep 0.2\necho 'compiler 2.1'\n`);
    chmodSync(compiler, 0o755);
    const [one, two] = await Promise.all([probeVersion(compiler, ['-v'], 'c', 'i'), probeVersion(compiler, ['-v'], 'c', 'i')]);
    expect(one).toEqual({ ok: true, version: 'compiler 2.1' });
    expect(two).toEqual(one);
    expect(probeVersionSync(compiler, ['-v'], 'c', 'i')).toEqual(one);
    expect(readFileSync(calls, 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('a missing command or a failing probe says what is missing and how to install it; the first failure is the verdict', async () => {
    const dir = tempDir();
    const failing = join(dir, 'failing');
    writeFileSync(failing, '#!/bin/sh\necho "no test library" >&2\nexit 2\n');
    chmodSync(failing, 0o755);
    const missing = await probeVersion(join(dir, 'absent'), ['--version'], 'absent', 'install absent');
    const fails = await probeVersion(failing, ['--version'], 'the library', 'install the library');
    expect(missing).toEqual({ ok: false, missing: 'absent', install: 'install absent' });
    expect(fails).toEqual({ ok: false, missing: 'the library', install: 'install the library' });
    expect(probeVersionSync(join(dir, 'absent2'), ['--version'], 'absent2', 'install it')).toEqual({
      ok: false,
      missing: 'absent2',
      install: 'install it',
    });
    expect(firstFailed([{ ok: true, version: 'x' }, fails, missing])).toEqual(fails);
  });
});
