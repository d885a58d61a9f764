/** Scripted LLM servers for one test file: `serve` starts one, and each is closed after its test. */
import { afterEach } from 'vitest';
import { startScriptedLlmServer, type Script, type ScriptedLlmServer, type ScriptedServerOptions } from './scripted-llm-server.js';

export function scriptedServersPerTest(
  options: ScriptedServerOptions = { applyStop: false },
): (script: Script) => Promise<ScriptedLlmServer> {
  const servers: ScriptedLlmServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  return async (script) => {
    const server = await startScriptedLlmServer(script, options);
    servers.push(server);
    return server;
  };
}
