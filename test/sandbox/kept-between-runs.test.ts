/**
 * What the toolchains keep between runs to start faster (docs/benchmarks.md, start-up of
 * MultiPL-E's languages): version probes, the tsc server's library check, Go's import sets. Each
 * must be used only for exactly what made it (a changed binary or version is probed again), a
 * corrupt or partial record must be ignored and written again, and concurrent writers must never
 * leave half a file.
 *
 * The cases run side by side, each in directories of its own: most of their time is waiting on
 * the processes they start (a tsx process per probe, tsc servers, the go command).
 */
import { execFile } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { keep, keptFile, readKept } from '../../infra/sandbox/process/toolchains/keptBetweenRuns.js';
import { ProcessExecutor } from '../../infra/sandbox/process/processExecutor.js';
import { warmTsToolchain } from '../../infra/sandbox/warm/warmToolchains.js';
import { GoDirectRoute } from '../../infra/sandbox/warm/go.js';
import { rDependsOn } from '../../infra/sandbox/process/toolchains/r.js';
import { rktDependsOn } from '../../infra/sandbox/process/toolchains/rkt.js';

const ROOT = join(import.meta.dirname, '..', '..');
const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'explora-kept-'));
  dirs.push(dir);
  return dir;
}
// After all cases, not each: they run side by side (below), each in directories of its own.
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const Value = z.object({ n: z.number() });

describe.concurrent('kept records', () => {
  it('are read back only for exactly what made them; a corrupt or partial one is ignored and written again', () => {
    const dir = tempDir();
    expect(readKept(dir, { a: 1 }, Value)).toBeUndefined();
    expect(keep(dir, { a: 1 }, { n: 1 })).toBe(true);
    expect(readKept(dir, { a: 1 }, Value)).toEqual({ n: 1 });
    expect(readKept(dir, { a: 2 }, Value)).toBeUndefined();
    // A record at the right name made for something else (a hash collision, a hand edit) is not used.
    writeFileSync(keptFile(dir, { a: 1 }), JSON.stringify({ what: { a: 3 }, value: { n: 1 } }));
    expect(readKept(dir, { a: 1 }, Value)).toBeUndefined();
    for (const broken of ['{"what": {"a": 1}, "val', '', '{"what": {"a": 1}, "value": {"n": "one"}}']) {
      writeFileSync(keptFile(dir, { a: 1 }), broken);
      expect(readKept(dir, { a: 1 }, Value)).toBeUndefined();
    }
    expect(keep(dir, { a: 1 }, { n: 2 })).toBe(true);
    expect(readKept(dir, { a: 1 }, Value)).toEqual({ n: 2 });
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('concurrent writers each replace a whole file: a reader never sees half of one', async () => {
    const dir = tempDir();
    const big = 'x'.repeat(200_000);
    const writer = `import { keep } from ${JSON.stringify(join(ROOT, 'infra/sandbox/process/toolchains/keptBetweenRuns.ts'))};
for (let i = 0; i < 100; i++) keep(${JSON.stringify(dir)}, { shared: 1 }, { n: i, big: 'x'.repeat(200000) });`;
    const writers = Array.from({ length: 3 }, () =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', writer], { cwd: ROOT }),
    );
    let done = false;
    const all = Promise.all(writers).finally(() => (done = true));
    while (!done) {
      const text = (() => {
        try {
          return readFileSync(keptFile(dir, { shared: 1 }), 'utf8');
        } catch {
          return undefined;
        }
      })();
      if (text !== undefined) {
        expect(() => JSON.parse(text)).not.toThrow();
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await all;
    expect(readKept(dir, { shared: 1 }, z.object({ n: z.number(), big: z.string() }))?.big).toBe(big);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  }, 120_000);
});

describe.concurrent('version probes kept between runs', () => {
  /** probeVersion in a fresh process (a run of its own), with the tools directory `tools`. */
  async function probeInFreshProcess(tools: string, bin: string): Promise<unknown> {
    const script = `import { probeVersion } from ${JSON.stringify(join(ROOT, 'infra/sandbox/process/toolchains/common.ts'))};
process.stdout.write(JSON.stringify(await probeVersion('fake-compiler', ['-version'], 'fake', 'install it', {}, { keepBetweenRuns: true })));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      env: { ...process.env, EXPLORA_TOOLS_DIR: tools, PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}` },
    });
    return JSON.parse(stdout);
  }

  it("a second run reuses the first one's answer; a changed binary is probed again; a corrupt record is probed again and rewritten", async () => {
    const tools = tempDir();
    const bin = tempDir();
    const calls = join(bin, 'calls');
    const compiler = join(bin, 'fake-compiler');
    const writeCompiler = (version: string) => {
      writeFileSync(compiler, `#!/bin/sh\necho probed >> ${calls}\necho '${version}'\n`);
      chmodSync(compiler, 0o755);
    };
    const probes = () => readFileSync(calls, 'utf8').split('\n').filter(Boolean).length;
    writeCompiler('fake 1.0');
    expect(await probeInFreshProcess(tools, bin)).toEqual({ ok: true, version: 'fake 1.0' });
    expect(await probeInFreshProcess(tools, bin)).toEqual({ ok: true, version: 'fake 1.0' });
    expect(probes()).toBe(1);
    // An upgrade replaces the binary (another size, inode and mtime): probed again.
    rmSync(compiler);
    writeCompiler('fake 2.0.1');
    expect(await probeInFreshProcess(tools, bin)).toEqual({ ok: true, version: 'fake 2.0.1' });
    expect(probes()).toBe(2);
    const probesDir = join(tools, 'multiple', 'probes');
    for (const f of readdirSync(probesDir)) writeFileSync(join(probesDir, f), '{"what":');
    expect(await probeInFreshProcess(tools, bin)).toEqual({ ok: true, version: 'fake 2.0.1' });
    expect(probes()).toBe(3);
    expect(await probeInFreshProcess(tools, bin)).toEqual({ ok: true, version: 'fake 2.0.1' });
    expect(probes()).toBe(3);
  }, 120_000);

  it('a launcher script: kept with what it loads, so a replaced library is probed again; a version on stderr is read there', async () => {
    const tools = tempDir();
    const bin = tempDir();
    const calls = join(bin, 'calls');
    const jar = join(bin, 'compiler.jar');
    const launcher = join(bin, 'fake-scalac');
    // As scalac's script: the version comes from the jar it loads, on stderr, exit 0.
    writeFileSync(launcher, `#!/bin/sh\necho probed >> ${calls}\ncat ${jar} >&2\n`);
    chmodSync(launcher, 0o755);
    const probe = async () => {
      const script = `import { probeVersion } from ${JSON.stringify(join(ROOT, 'infra/sandbox/process/toolchains/common.ts'))};
import { fileIdentity } from ${JSON.stringify(join(ROOT, 'infra/sandbox/process/toolchains/keptBetweenRuns.ts'))};
process.stdout.write(JSON.stringify(await probeVersion(${JSON.stringify(launcher)}, ['-version'], 'scalac', 'install it', {}, { keepBetweenRuns: true, versionOnStderr: true, alsoDependsOn: () => fileIdentity(${JSON.stringify(jar)}) })));`;
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        cwd: ROOT,
        env: { ...process.env, EXPLORA_TOOLS_DIR: tools },
      });
      return (JSON.parse(stdout) as { version: string }).version;
    };
    const probes = () => readFileSync(calls, 'utf8').split('\n').filter(Boolean).length;
    writeFileSync(jar, 'Scala compiler version 2.11.12\n');
    expect(await probe()).toBe('Scala compiler version 2.11.12');
    expect(await probe()).toBe('Scala compiler version 2.11.12');
    expect(probes()).toBe(1);
    rmSync(jar);
    writeFileSync(jar, 'Scala compiler version 2.13.14 (upgraded)\n');
    expect(await probe()).toBe('Scala compiler version 2.13.14 (upgraded)');
    expect(probes()).toBe(2);
  }, 120_000);

  it("rustup's proxy: reused while rustup's choice stands; a new default, a rust-toolchain file or an updated toolchain is probed again", async () => {
    const tools = tempDir();
    const bin = tempDir();
    const home = tempDir();
    const project = join(tempDir(), 'project');
    mkdirSync(project);
    const calls = join(bin, 'calls');
    const rustupHome = join(home, '.rustup');
    // A stand-in for rustup as its proxy works: the toolchain named by the nearest rust-toolchain
    // file, else settings.toml's default, answers with what its own bin/rustc prints.
    writeFileSync(
      join(bin, 'rustup'),
      `#!/bin/sh
echo probed >> ${calls}
dir=$PWD; name=
while :; do
  if [ -f "$dir/rust-toolchain" ]; then name=$(cat "$dir/rust-toolchain"); break; fi
  [ "$dir" = / ] && break; dir=$(dirname "$dir")
done
[ -n "$name" ] || name=$(sed -n 's/^default_toolchain = "\\(.*\\)"/\\1/p' "$HOME/.rustup/settings.toml")
exec "$HOME/.rustup/toolchains/$name/bin/rustc" "$@"
`,
    );
    chmodSync(join(bin, 'rustup'), 0o755);
    symlinkSync('rustup', join(bin, 'rustc'));
    const installToolchain = (name: string, version: string) => {
      const dir = join(rustupHome, 'toolchains', name, 'bin');
      mkdirSync(dir, { recursive: true });
      rmSync(join(dir, 'rustc'), { force: true });
      writeFileSync(join(dir, 'rustc'), `#!/bin/sh\necho '${version}'\n`);
      chmodSync(join(dir, 'rustc'), 0o755);
    };
    const setDefault = (name: string) =>
      writeFileSync(join(rustupHome, 'settings.toml'), `version = "12"\ndefault_toolchain = "${name}"\n`);
    installToolchain('stable', 'rustc 1.80.0');
    installToolchain('nightly', 'rustc 1.83.0-nightly');
    setDefault('stable');
    const probe = async () => {
      const script = `import { probeVersion } from ${JSON.stringify(join(ROOT, 'infra/sandbox/process/toolchains/common.ts'))};
process.stdout.write(JSON.stringify(await probeVersion('rustc', ['--version'], 'rustc', 'install it', {}, { keepBetweenRuns: true })));`;
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--import', join(ROOT, 'node_modules/tsx/dist/loader.mjs'), '--input-type=module', '-e', script],
        {
          cwd: project,
          env: { ...process.env, HOME: home, EXPLORA_TOOLS_DIR: tools, PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}` },
        },
      );
      return (JSON.parse(stdout) as { version: string }).version;
    };
    const probes = () => readFileSync(calls, 'utf8').split('\n').filter(Boolean).length;

    expect(await probe()).toBe('rustc 1.80.0');
    expect(await probe()).toBe('rustc 1.80.0');
    expect(probes()).toBe(1);
    setDefault('nightly');
    expect(await probe()).toBe('rustc 1.83.0-nightly');
    expect(probes()).toBe(2);
    writeFileSync(join(project, 'rust-toolchain'), 'stable');
    expect(await probe()).toBe('rustc 1.80.0');
    expect(await probe()).toBe('rustc 1.80.0');
    expect(probes()).toBe(3);
    installToolchain('stable', 'rustc 1.81.0');
    expect(await probe()).toBe('rustc 1.81.0');
    expect(probes()).toBe(4);
  }, 120_000);
});

describe.concurrent("R's check, kept with the R installation it starts", () => {
  it('R_HOME from the launcher script beside Rscript, or the environment; a replaced libR.so or base package changes the key', () => {
    const dir = tempDir();
    const bin = join(dir, 'bin');
    const home = join(dir, 'lib', 'R');
    for (const d of [bin, join(home, 'bin', 'exec'), join(home, 'lib'), join(home, 'etc'), join(home, 'library', 'base')])
      mkdirSync(d, { recursive: true });
    // As Debian's /usr/bin/R: a shell script that names the R_HOME its build was made for.
    writeFileSync(
      join(bin, 'R'),
      `#!/bin/bash\n# Shell wrapper for R executable.\n\nR_HOME_DIR=${home}\nexec "\${R_HOME_DIR}/bin/exec/R" "$@"\n`,
    );
    chmodSync(join(bin, 'R'), 0o755);
    for (const f of ['bin/exec/R', 'lib/libR.so', 'etc/Renviron', 'library/base/DESCRIPTION']) writeFileSync(join(home, f), 'R 4.2.2\n');
    const key = (env: NodeJS.ProcessEnv = {}) => JSON.stringify(rDependsOn(bin, env));
    const first = key();
    expect(first).toContain(home);
    expect(JSON.parse(first).files).toHaveLength(4);
    expect(key()).toBe(first);
    // An upgraded R: its library rewritten (another size), then its base package.
    writeFileSync(join(home, 'lib', 'libR.so'), 'R 4.4.1, a longer library\n');
    const upgraded = key();
    expect(upgraded).not.toBe(first);
    writeFileSync(join(home, 'library', 'base', 'DESCRIPTION'), 'Package: base, another version\n');
    expect(key()).not.toBe(upgraded);
    // R_HOME in the environment is the R Rscript starts, whatever the launcher says.
    expect(JSON.parse(key({ R_HOME: join(dir, 'elsewhere') })).home).toBe(join(dir, 'elsewhere'));
    // No R at all: nothing to key on but that.
    expect(JSON.parse(JSON.stringify(rDependsOn(join(dir, 'nowhere'), {})))).toEqual({ launcher: null, home: null, files: [] });
  });
});

describe.concurrent("Racket's check, kept with where racket finds its packages", () => {
  it("the installation's config names its directories; a package installed or removed, or the user's add-on directory, changes the key", () => {
    const dir = tempDir();
    const prefix = join(dir, 'opt', 'racket');
    const bin = join(prefix, 'bin');
    const share = join(dir, 'share');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'racket'), '#!/bin/sh\n');
    chmodSync(join(bin, 'racket'), 0o755);
    // A tarball install: <prefix>/etc/config.rktd naming where it put the rest.
    mkdirSync(join(prefix, 'etc'));
    writeFileSync(join(prefix, 'etc', 'config.rktd'), `#hash((share-dir . "${share}") (pkgs-dir . "${join(share, 'pkgs')}"))\n`);
    for (const d of ['collects', 'pkgs/rackunit-lib']) mkdirSync(join(share, d), { recursive: true });
    writeFileSync(join(share, 'links.rktd'), '()\n');
    const home = join(dir, 'home');
    mkdirSync(home);
    // A directory's mtime moves with its entries, at the file system's clock resolution: make each change visible.
    const later = (path: string) => utimesSync(path, new Date(), new Date(Date.now() + 5_000 * ++ticks));
    let ticks = 0;
    const key = (env: NodeJS.ProcessEnv = { HOME: home }) => JSON.stringify(rktDependsOn(bin, env));
    const first = key();
    expect(JSON.parse(first).rackunit.file).toBe(join(share, 'pkgs', 'rackunit-lib'));
    expect(key()).toBe(first);
    // rackunit removed: its package directory is gone, and the packages' directory changed.
    rmSync(join(share, 'pkgs', 'rackunit-lib'), { recursive: true });
    later(join(share, 'pkgs'));
    const removed = key();
    expect(removed).not.toBe(first);
    expect(JSON.parse(removed).rackunit).toBeNull();
    // A package installed in the user's scope.
    mkdirSync(join(home, '.local', 'share', 'racket'), { recursive: true });
    writeFileSync(join(home, '.local', 'share', 'racket', 'links.rktd'), '(("rackunit" "elsewhere"))\n');
    const user = key();
    expect(user).not.toBe(removed);
    expect(JSON.parse(user).addonLinks).not.toBeNull();
    // PLTCOLLECTS moves the collections whatever the files say.
    expect(key({ HOME: home, PLTCOLLECTS: '/elsewhere' })).not.toBe(user);
    // No racket at all.
    expect(rktDependsOn(join(dir, 'nowhere'), {})).toBeNull();
  });
});

describe.concurrent("the tsc server's library check, kept between runs", () => {
  const program = "declare var require: any;\nrequire('node:assert').deepEqual(1 + 1, 2);\n";
  async function runOnce(dir: string) {
    const executor = new ProcessExecutor(warmTsToolchain({ libraryChecksDir: dir }), { concurrency: 1, limits: { timeoutMs: 30_000 } });
    try {
      await executor.start();
      return await executor.run({ id: 'p', program });
    } finally {
      await executor.close();
    }
  }
  const KeptRecord = z.object({
    what: z.object({ typescript: z.string(), libFiles: z.array(z.string()) }).passthrough(),
    value: z.object({ diagnostics: z.array(z.unknown()) }),
  });

  it("a later server uses the kept diagnostics (they reach the program's verdict); a corrupt or foreign record is ignored and rewritten", async () => {
    const dir = tempDir();
    expect((await runOnce(dir)).status).toBe('passed');
    const [name] = readdirSync(dir).filter((f) => f.endsWith('.json'));
    expect(name).toBeDefined();
    // Rewritten from the raw JSON (a schema's output may reorder the keys, and a record is used only for exactly its `what`).
    const raw = JSON.parse(readFileSync(join(dir, name!), 'utf8')) as { what: Record<string, unknown>; value: unknown };
    const record = KeptRecord.parse(raw);
    // A diagnostic planted in the kept record is reported as the library's: the record is what the next server used.
    const planted = { fileName: record.what.libFiles[0], start: 0, length: 1, messageText: 'planted by the test', category: 1, code: 9999 };
    /** A copy of the first run's directory, its record replaced by `text`: the three later servers start side by side. */
    const withRecord = (text: string) => {
      const copy = tempDir();
      cpSync(dir, copy, { recursive: true });
      writeFileSync(join(copy, name!), text);
      return copy;
    };
    const plantedDir = withRecord(JSON.stringify({ what: raw.what, value: { diagnostics: [planted] } }));
    // The same record for another TypeScript version: not used (the library is checked again, and the record rewritten).
    const foreignDir = withRecord(JSON.stringify({ what: { ...raw.what, typescript: '0.0.1' }, value: { diagnostics: [planted] } }));
    const corruptDir = withRecord('{"what": {"libraryCheck"');
    const [withPlanted, withForeign, withCorrupt] = await Promise.all([runOnce(plantedDir), runOnce(foreignDir), runOnce(corruptDir)]);
    expect(withPlanted.status).toBe('compile_error');
    expect(JSON.stringify(withPlanted)).toContain('planted by the test');
    expect(withForeign.status).toBe('passed');
    expect(KeptRecord.parse(JSON.parse(readFileSync(join(foreignDir, name!), 'utf8'))).what.typescript).toBe(record.what.typescript);
    expect(withCorrupt.status).toBe('passed');
    expect(KeptRecord.parse(JSON.parse(readFileSync(join(corruptDir, name!), 'utf8'))).value.diagnostics).toEqual(record.value.diagnostics);
    for (const d of [dir, plantedDir, foreignDir, corruptDir]) expect(readdirSync(d).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  }, 600_000);
});

describe.concurrent("Go's direct route, its import sets kept between runs", () => {
  const program = 'package add_test\n\nimport (\n\t"fmt"\n\t"testing"\n)\n\nfunc TestAdd(t *testing.T) { fmt.Println(1) }\n';

  it('a later route uses the kept set; a set whose files are gone or whose record is corrupt is made again', async () => {
    const kept = tempDir();
    const first = new GoDirectRoute(kept);
    await first.start();
    const importcfg = first.directPlan(program, '/job', '/opt/std')!.files.importcfg!;
    expect(importcfg).toMatch(/^packagefile fmt=\/opt\/std\/\S+$/m);
    await first.close();
    const [installation] = readdirSync(kept);
    const setsDir = join(kept, installation!, 'import-sets');
    const copy = join(kept, installation!, 'std-copy');
    const [setFile] = readdirSync(setsDir).filter((f) => f.endsWith('.json'));
    const record = JSON.parse(readFileSync(join(setsDir, setFile!), 'utf8')) as {
      what: unknown;
      value: { exports: Record<string, string> };
    };
    // Point fmt's export data at another file of the copy: the next route's importcfg names it.
    const fmtFile = record.value.exports.fmt!;
    const other = record.value.exports.errors!;
    writeFileSync(
      join(setsDir, setFile!),
      JSON.stringify({ ...record, value: { ...record.value, exports: { ...record.value.exports, fmt: other } } }),
    );
    const second = new GoDirectRoute(kept);
    await second.start();
    expect(second.directPlan(program, '/job', '/opt/std')!.files.importcfg).toContain(`packagefile fmt=/opt/std/${other}\n`);
    await second.close();
    // A corrupt record: the set is made again from the go command, and kept again.
    writeFileSync(join(setsDir, setFile!), '{"what": ');
    const third = new GoDirectRoute(kept);
    await third.start();
    expect(third.directPlan(program, '/job', '/opt/std')!.files.importcfg).toContain(`packagefile fmt=/opt/std/${fmtFile}\n`);
    await third.close();
    expect((JSON.parse(readFileSync(join(setsDir, setFile!), 'utf8')) as typeof record).value.exports.fmt).toBe(fmtFile);
    // A file of the set gone from the copy: the set is made again (and the file copied back).
    rmSync(join(copy, fmtFile));
    const fourth = new GoDirectRoute(kept);
    await fourth.start();
    expect(fourth.directPlan(program, '/job', '/opt/std')!.files.importcfg).toContain(`packagefile fmt=/opt/std/${fmtFile}\n`);
    expect(readdirSync(copy)).toContain(fmtFile);
    await fourth.close();
    expect(readdirSync(copy).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  }, 600_000);
});
