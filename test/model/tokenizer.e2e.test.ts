/**
 * The dry run's tokenizer (stack/model-server/tokenizer.ts: the GGUF's vocabulary alone, no server)
 * counts the prompt tokens the embedded model server reports in `usage` for the same requests: chat
 * (through the model's chat template, with and without a system message) and completions. Uses the
 * stack's model server when it runs, else starts one of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelBaseUrl, stackPaths } from '../../stack/local-stack.js';
import { startModelServer, type ModelServer } from '../../stack/model-server/index.js';
import { localModelFile, openModelTokenizer, type ModelTokenizer } from '../../stack/model-server/tokenizer.js';
import { humanEvalProblems } from '../sweep/support.js';
import { installedModelPath, post } from './support.js';

const MODEL = 'qwen2.5-coder-0.5b-instruct';
let url: string;
let own: ModelServer | undefined;
let tokenizer: ModelTokenizer;

beforeAll(async () => {
  const modelPath = installedModelPath();
  const stack = modelBaseUrl(stackPaths());
  const up = stack
    ? await fetch(`${stack.replace(/\/v1$/, '')}/health`).then(
        (r) => r.ok,
        () => false,
      )
    : false;
  if (stack && up) url = stack;
  else {
    own = await startModelServer({ host: '127.0.0.1', port: 0, modelPath, slots: 1 });
    url = own.url;
  }
  const file = localModelFile(MODEL);
  expect(file).not.toBeNull();
  tokenizer = await openModelTokenizer(file!);
}, 300_000);
afterAll(async () => {
  await tokenizer?.close();
  await own?.close();
});

describe("the dry run's tokenizer", () => {
  it("counts a chat's and a completion's prompt tokens as the model server does", async () => {
    const problems = humanEvalProblems(2);
    for (const p of problems) {
      const user = { role: 'user', content: `Complete this function.\n\n\`\`\`python\n${p.prompt}\`\`\`\n` };
      for (const messages of [[user], [{ role: 'system', content: 'You write Python.' }, user]]) {
        const r = await post(url, '/chat/completions', { model: MODEL, messages, max_tokens: 1, temperature: 0 });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        expect(tokenizer.chatTokens(messages)).toBe(r.body.usage.prompt_tokens);
      }
      const r = await post(url, '/completions', { model: MODEL, prompt: p.prompt, max_tokens: 1, temperature: 0 });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(tokenizer.completionTokens(p.prompt)).toBe(r.body.usage.prompt_tokens);
    }
  }, 300_000);

  it('is found for the model name the server serves, and for no other', () => {
    expect(localModelFile(MODEL)).toMatch(/qwen2\.5-coder-0\.5b-instruct\.gguf$/);
    expect(localModelFile('gpt-4o')).toBeNull();
    expect(localModelFile('../model/qwen2.5-coder-0.5b-instruct')).toBeNull();
  });
});
