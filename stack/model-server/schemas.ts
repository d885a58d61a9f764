/**
 * Request bodies of the OpenAI API subset the model server speaks, validated with zod. Parameters
 * the server cannot honour are refused with a 400 naming them, never silently ignored: a sweep that
 * asks for logprobs or a penalty must not get answers computed without them. Unknown parameters
 * are refused too, as the API does ("Unrecognized request argument supplied"), so that e.g. a
 * server-specific top_k meant for another backend is not dropped without a word. Parameters that
 * change nothing about the answer (user, metadata, store, ...) are accepted.
 */
import { z } from 'zod';

/** Most choices one request may ask for (n, times the prompts of a batched completions request). */
export const MAX_CHOICES = 64;

const StopSchema = z
  .union([z.string(), z.array(z.string()).max(16)])
  .nullish()
  .transform((v) => (v === null || v === undefined ? [] : Array.isArray(v) ? v : [v]))
  .refine((stops) => stops.every((s) => s.length > 0), { message: 'stop sequences must not be empty strings' });

/** Parameters both generating routes share. Defaults are the API's. */
const SamplingShape = {
  model: z.string().min(1),
  n: z.int().min(1).max(MAX_CHOICES).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  max_tokens: z.int().min(1).nullish(),
  stop: StopSchema,
  /** Any integer; reduced modulo 2^32 for the sampler. Choice i uses seed + i. */
  seed: z.int().nullish(),
  stream: z.boolean().nullish(),
  presence_penalty: z.number().min(-2).max(2).nullish(),
  frequency_penalty: z.number().min(-2).max(2).nullish(),
  logit_bias: z.record(z.string(), z.number()).nullish(),
  user: z.string().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  store: z.boolean().nullish(),
  service_tier: z.string().nullish(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullish(),
};

const TextPartSchema = z.strictObject({ type: z.literal('text'), text: z.string() });
const ContentSchema = z.union([z.string(), z.array(TextPartSchema)], {
  error: 'content must be a string or an array of text parts ({"type": "text", "text": "..."}); this server takes no images or audio',
});

export const ChatMessageSchema = z.strictObject({
  role: z.enum(['system', 'developer', 'user', 'assistant']),
  content: ContentSchema.nullish(),
  name: z.string().optional(),
});

export const ChatRequestSchema = z.strictObject({
  ...SamplingShape,
  messages: z.array(ChatMessageSchema).min(1),
  max_completion_tokens: z.int().min(1).nullish(),
  logprobs: z.boolean().nullish(),
  top_logprobs: z.int().nullish(),
  tools: z.array(z.unknown()).nullish(),
  tool_choice: z.unknown().optional(),
  parallel_tool_calls: z.boolean().nullish(),
  functions: z.array(z.unknown()).nullish(),
  response_format: z.object({ type: z.string() }).loose().nullish(),
});
export type ChatRequest = z.infer<typeof ChatRequestSchema>;

export const CompletionRequestSchema = z.strictObject({
  ...SamplingShape,
  prompt: z.union([z.string(), z.array(z.string()).min(1)]),
  logprobs: z.int().nullish(),
  echo: z.boolean().nullish(),
  best_of: z.int().nullish(),
  suffix: z.string().nullish(),
});
export type CompletionRequest = z.infer<typeof CompletionRequestSchema>;

export const EmbeddingRequestSchema = z.strictObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(z.string()).min(1).max(256)]),
  encoding_format: z.enum(['float', 'base64']).nullish(),
  dimensions: z.int().min(1).nullish(),
  user: z.string().nullish(),
});
export type EmbeddingRequest = z.infer<typeof EmbeddingRequestSchema>;

/** A parameter the server understands but cannot honour with the given value. */
export interface Unsupported {
  param: string;
  message: string;
}

/** What the shared sampling parameters ask for that this server does not do. */
function unsupportedSampling(body: ChatRequest | CompletionRequest): Unsupported | null {
  if (body.stream) return { param: 'stream', message: 'streaming is not supported by this server; send stream: false' };
  if (body.presence_penalty) return { param: 'presence_penalty', message: 'presence_penalty is not supported by this server (only 0)' };
  if (body.frequency_penalty) return { param: 'frequency_penalty', message: 'frequency_penalty is not supported by this server (only 0)' };
  if (body.logit_bias && Object.keys(body.logit_bias).length > 0)
    return { param: 'logit_bias', message: 'logit_bias is not supported by this server' };
  return null;
}

export function unsupportedChat(body: ChatRequest): Unsupported | null {
  const common = unsupportedSampling(body);
  if (common) return common;
  if (body.logprobs) return { param: 'logprobs', message: 'logprobs are not supported by this server' };
  if (body.tools?.length || body.functions?.length)
    return { param: body.tools?.length ? 'tools' : 'functions', message: 'tool calling is not supported by this server' };
  if (body.response_format && body.response_format.type !== 'text')
    return {
      param: 'response_format',
      message: `response_format ${body.response_format.type} is not supported by this server (only text)`,
    };
  return null;
}

export function unsupportedCompletion(body: CompletionRequest): Unsupported | null {
  const common = unsupportedSampling(body);
  if (common) return common;
  if (body.logprobs !== null && body.logprobs !== undefined)
    return { param: 'logprobs', message: 'logprobs are not supported by this server' };
  if (body.echo) return { param: 'echo', message: 'echo is not supported by this server' };
  if (body.best_of !== null && body.best_of !== undefined && body.best_of !== 1)
    return { param: 'best_of', message: 'best_of is not supported by this server (only 1)' };
  if (body.suffix) return { param: 'suffix', message: 'suffix (insertion) is not supported by this server' };
  return null;
}

/** The first issue of a failed parse as the API reports it: a message and the offending parameter. */
export function describeIssue(error: z.ZodError): Unsupported {
  const issue = error.issues[0];
  if (!issue) return { param: '', message: 'invalid request body' };
  const param = issue.path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    const full = param ? `${param}.${key}` : key;
    return { param: full, message: `Unrecognized request argument supplied: ${full}` };
  }
  if (issue.code === 'invalid_type' && /received undefined/.test(issue.message))
    return { param, message: `Missing required parameter: '${param}'.` };
  return { param, message: `Invalid value for '${param || 'body'}': ${issue.message}` };
}
