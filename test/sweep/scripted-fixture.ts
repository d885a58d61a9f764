/**
 * A test file's fixture for end-to-end sweeps of HumanEval tasks against a scripted server that
 * answers each request after `answerMs`: the bucket, a temporary directory for configs and the
 * server, all closed after the file's tests.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { ExploraConfig } from '../../domain/config/env.js';
import { testBucket } from '../support/s3.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { humanEvalProblems, scriptedAnswers } from './support.js';

export function scriptedSweepFixture(config: ExploraConfig, name: string, tasks: number, answerMs: number) {
  const bucket = testBucket(config);
  const dir = mkdtempSync(path.join(os.tmpdir(), `explora-${name}-`));
  const problems = humanEvalProblems(tasks);
  let server: ScriptedLlmServer | undefined;
  beforeAll(async () => {
    server = await startScriptedLlmServer(scriptedAnswers(problems, new Map(), answerMs));
  });
  afterAll(async () => {
    await server?.close();
    bucket.s3.destroy();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    bucket,
    dir,
    problems,
    /** The running server (from the first test on). */
    server: (): ScriptedLlmServer => {
      if (!server) throw new Error('the scripted server starts before the first test');
      return server;
    },
  };
}
