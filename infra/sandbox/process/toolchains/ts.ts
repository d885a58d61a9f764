/**
 * TypeScript (MultiPL-E `ts`): as its eval_ts.py, `tsc --target esnext program.ts` (a type error
 * fails the compile: `compile_error`, MultiPL-E's SyntaxError), then `node program.js`.
 * The compiler is the project's own `typescript` dependency (package.json), mounted read-only.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { Toolchain } from '../contract.js';
import { BUILD_DIR } from '../contract.js';
import { classifyNode, jsToolchain, nodeArgs } from './js.js';
import { z } from 'zod';
import { COMPILE_LIMITS } from './common.js';

const TSC_IN_SANDBOX = '/opt/typescript';

function typescriptDir(): string | undefined {
  try {
    return realpathSync(dirname(createRequire(import.meta.url).resolve('typescript/package.json')));
  } catch {
    return undefined;
  }
}

export function tsToolchain(): Toolchain {
  return {
    language: 'ts',
    name: 'TypeScript (tsc + Node.js)',
    check: async () => {
      const node = await jsToolchain().check();
      if (!node.ok) return node;
      const dir = typescriptDir();
      if (!dir)
        return {
          ok: false,
          missing: "TypeScript's compiler (the npm package typescript)",
          install: 'run `npm install` in the repository (typescript is a dependency)',
        };
      // `tsc --version` prints "Version " and the package's version; read where it reads it rather than
      // load the whole compiler (0.5 s of a cold node) before the first program.
      try {
        const version = z.object({ version: z.string() }).parse(JSON.parse(readFileSync(`${dir}/package.json`, 'utf8'))).version;
        if (!existsSync(`${dir}/bin/tsc`)) throw new Error('no bin/tsc');
        return { ok: true, version: `Version ${version}` };
      } catch {
        return { ok: false, missing: "TypeScript's compiler (the npm package typescript)", install: 'run `npm install` in the repository' };
      }
    },
    mounts: () => [{ host: typescriptDir()!, sandbox: TSC_IN_SANDBOX }],
    files: (program) => ({ 'program.ts': program }),
    compile: () => ({
      kind: 'sandbox',
      argv: ['node', '--max-old-space-size=1024', `${TSC_IN_SANDBOX}/bin/tsc`, '--target', 'esnext', 'program.ts'],
      env: { LANG: 'C.UTF-8', HOME: '/tmp' },
      limits: COMPILE_LIMITS,
    }),
    run: (limits) => ({ ...jsToolchain().run(limits), argv: nodeArgs(limits, `${BUILD_DIR}/program.js`) }),
    classify: classifyNode,
  };
}
