/**
 * The native parts of the fork servers (infra/sandbox/process/forkLibrary.ts): built with the
 * machine's `cc`, named by what they are built from, and null when they cannot be built (a
 * missing header), in which case Lua's server falls back to exec mode.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { forkLibrary } from '../../infra/sandbox/process/forkLibrary.js';
import { luaForkServer } from '../../infra/sandbox/process/luaForkServer.js';

const dir = mkdtempSync(join(tmpdir(), 'explora-fork-library-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('fork libraries', () => {
  it("Lua's module builds against Lua 5.4's headers, once, into the given directory", () => {
    const library = forkLibrary('luafork.c', ['-I/usr/include/lua5.4'], dir);
    expect(library).toMatch(/luafork-[0-9a-f]{16}\.so$/);
    expect(existsSync(library!)).toBe(true);
    expect(forkLibrary('luafork.c', ['-I/usr/include/lua5.4'], dir)).toBe(library);
    expect(readdirSync(dir).filter((f) => f.endsWith('.partial'))).toEqual([]);
  });

  it('without the headers it cannot be built: null, and the Lua server execs the lone command instead', () => {
    expect(forkLibrary('luafork.c', ['-I/nonexistent', '-nostdinc'], dir)).toBeNull();
    const spec = luaForkServer(null);
    expect(spec.exec).toBe(true);
    expect(spec.script).toMatch(/fork\/pl\.pl$/);
  });

  it('with the module: the server is lua on fork/lua.lua, the module mounted beside it', () => {
    const spec = luaForkServer('/some/luafork-0123.so');
    expect(spec.exec).toBeUndefined();
    expect(spec.script).toMatch(/fork\/lua\.lua$/);
    expect(spec.argv('/fork/lua.lua')).toEqual(['sh', '-c', 'exec lua "$0" 3<&0 0</dev/null', '/fork/lua.lua']);
    expect(spec.mounts).toEqual([{ host: '/some/luafork-0123.so', sandbox: '/fork/luafork.so' }]);
  });
});
