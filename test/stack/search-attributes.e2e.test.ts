/**
 * A namespace without the sweeps' search attributes: start-sweep refuses it at once, naming each
 * missing attribute and the ways to register them; scripts/register-search-attributes.ts registers
 * them; then the same command starts the sweep.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { startScriptedLlmServer } from '../support/scripted-llm-server.js';
import { SEARCH_ATTRIBUTES } from '../../domain/config/searchAttributes.js';
import { sweepWorkflowId } from '../../domain/sweep/keys.js';
import { testConfig, uniqueSuffix } from '../support/config.js';
import { runTs } from '../support/processes.js';
import { HUMANEVAL_DATASETS_YAML, oneSampleDirectYaml, scriptedModelYaml } from '../sweep/support.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'explora-sa-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('search attributes on a namespace', () => {
  it('a bare namespace is refused naming the missing attributes; registered, the sweep starts', async () => {
    const namespace = `bare-${uniqueSuffix()}`;
    const { config, env } = testConfig({ TEMPORAL_NAMESPACE: namespace });
    const connection = await Connection.connect({ address: config.temporal.address });
    try {
      await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs(86_400_000) });
      const id = `sa-${uniqueSuffix()}`;
      const file = path.join(dir, `${id}.yaml`);
      // An endpoint that answers: start-sweep checks the model before it starts anything.
      const llm = await startScriptedLlmServer(() => ({ content: '' }));
      onTestFinished(() => llm.close());
      writeFileSync(
        file,
        `id: ${id}\n${HUMANEVAL_DATASETS_YAML}models:\n${scriptedModelYaml('m', llm.url, 'x', 'completions')}${oneSampleDirectYaml(1)}`,
      );

      // The new namespace may take a moment to be served: until then start-sweep cannot list it either.
      let refused = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-wait'], env);
      for (let i = 0; i < 20 && !/lacks the search attributes/.test(refused.output); i++) {
        await new Promise((r) => setTimeout(r, 500));
        refused = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-wait'], env);
      }
      expect(refused.code, refused.output).not.toBe(0);
      expect(refused.output).toContain(`namespace ${namespace} lacks the search attributes the sweeps use:`);
      for (const a of SEARCH_ATTRIBUTES) {
        expect(refused.output).toContain(`${a.name} (${a.type})`);
        expect(refused.output).toContain(
          `temporal operator search-attribute create --namespace ${namespace} --name ${a.name} --type ${a.type}`,
        );
      }
      expect(refused.output).toContain('node bin/run.mjs scripts/register-search-attributes.ts');

      const registered = await runTs('scripts/register-search-attributes.ts', [], env);
      expect(registered.code, registered.output).toBe(0);
      expect(registered.output).toContain(`registered ${SEARCH_ATTRIBUTES.map((a) => a.name).join(', ')} on namespace ${namespace}`);
      const again = await runTs('scripts/register-search-attributes.ts', [], env);
      expect(again.output).toContain(`namespace ${namespace} has every search attribute the sweeps use`);

      const started = await runTs('scripts/start-sweep.ts', ['--config', file, '--no-wait'], env);
      expect(started.code, started.output).toBe(0);
      expect(started.output).toContain(`sweep ${id}: `);
      await new Client({ connection, namespace }).workflow.getHandle(sweepWorkflowId(id)).terminate('test done');
    } finally {
      await connection.close();
    }
  });
});
