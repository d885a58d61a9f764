/**
 * OpenAI SDK clients, one per endpoint, key and timeout, shared by the LLM and embedding
 * activities. SDK retries are off: Temporal owns the retries. The key is read from the worker's
 * environment by name; a missing one fails the activity for good (retrying cannot add it). Requests go
 * through `undiciFetch` (why: undiciFetch.ts).
 */
import { ApplicationFailure } from '@temporalio/common';
import OpenAI from 'openai';
import { undiciFetch } from './undiciFetch.js';

export interface ClientEndpoint {
  baseUrl: string;
  apiKeyEnv?: string;
  requestTimeoutS: number;
}

export class OpenAiClients {
  private readonly clients = new Map<string, OpenAI>();

  constructor(private readonly env: Record<string, string | undefined> = process.env) {}

  /** `what` names the endpoint in the error, e.g. `model gpt-x`. */
  for(endpoint: ClientEndpoint, what: string): OpenAI {
    const apiKey = endpoint.apiKeyEnv ? this.env[endpoint.apiKeyEnv] : 'unused';
    if (apiKey === undefined || apiKey === '') {
      throw ApplicationFailure.nonRetryable(`${what}: the worker has no ${endpoint.apiKeyEnv} in its environment`, 'LlmConfigError');
    }
    const id = `${endpoint.baseUrl}\0${apiKey}\0${endpoint.requestTimeoutS}`;
    let client = this.clients.get(id);
    if (!client) {
      client = new OpenAI({
        baseURL: endpoint.baseUrl,
        apiKey,
        maxRetries: 0,
        timeout: endpoint.requestTimeoutS * 1000,
        fetch: undiciFetch,
      });
      this.clients.set(id, client);
    }
    return client;
  }
}
