/** Helpers for the tests against the embedded model server: the real model, installed on demand. */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultModelPath } from '../../stack/model-server/index.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Installs the default model's weights if they are not there yet (idempotent, fast when installed). */
export function installedModelPath(): string {
  execFileSync('bash', [path.join(ROOT, 'scripts/install-model.sh')], { stdio: 'inherit' });
  return defaultModelPath();
}

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

export async function post(baseUrl: string, route: string, body: unknown, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(`${baseUrl}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

export async function get(baseUrl: string, route: string): Promise<Answer> {
  const res = await fetch(`${baseUrl}${route}`);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

/** The API's error shape, exactly: `{"error": {"message", "type", "param", "code"}}`. */
export function expectApiError(
  answer: Answer,
  status: number,
  expected: { type?: string; param?: string | null; code?: string | null; message?: RegExp } = {},
): void {
  if (answer.status !== status) throw new Error(`expected ${status}, got ${answer.status}: ${JSON.stringify(answer.body)}`);
  const keys = Object.keys(answer.body ?? {});
  if (keys.length !== 1 || keys[0] !== 'error') throw new Error(`not an API error body: ${JSON.stringify(answer.body)}`);
  const error = answer.body.error;
  const errorKeys = Object.keys(error).sort();
  if (JSON.stringify(errorKeys) !== JSON.stringify(['code', 'message', 'param', 'type']))
    throw new Error(`error fields ${errorKeys.join(',')}`);
  if (typeof error.message !== 'string' || error.message === '') throw new Error('empty error message');
  if (expected.type !== undefined && error.type !== expected.type) throw new Error(`type ${error.type}, expected ${expected.type}`);
  if (expected.param !== undefined && error.param !== expected.param) throw new Error(`param ${error.param}, expected ${expected.param}`);
  if (expected.code !== undefined && error.code !== expected.code) throw new Error(`code ${error.code}, expected ${expected.code}`);
  if (expected.message && !expected.message.test(error.message))
    throw new Error(`message '${error.message}' does not match ${expected.message}`);
}
