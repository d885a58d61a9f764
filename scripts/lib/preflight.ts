/**
 * The connections a start needs, checked before it writes anything: a start refused for a setting
 * (credentials, TLS, namespace, an endpoint) leaves nothing behind in the bucket or the namespace.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import type { ExploraConfig } from '../../domain/config/env.js';
import { checkS3Access } from '../../infra/s3.js';
import { connectTemporal } from '../../infra/temporal/connection.js';

export type TemporalClient = Awaited<ReturnType<typeof connectTemporal>>;

/**
 * S3 first (credentials found and accepted for the bucket, naming where they came from), then
 * Temporal (address, TLS, credentials, namespace), then `more` on the open connection (search
 * attributes, endpoints); the connection is closed if any of them refuses.
 */
export async function connectBeforeWriting(
  env: ExploraConfig,
  s3: S3Client,
  more: (temporal: TemporalClient) => Promise<void> = async () => {},
): Promise<TemporalClient> {
  await checkS3Access(env, s3);
  const temporal = await connectTemporal(env);
  try {
    await more(temporal);
  } catch (err) {
    await temporal.close();
    throw err;
  }
  return temporal;
}

/** A model endpoint that does not answer at all (refused, unknown host, no answer in 10 s). */
export interface Unanswered {
  model: string;
  baseUrl: string;
  reason: string;
}

/**
 * Which of these endpoints nothing answers at. Any HTTP answer counts as an answer (a 401 or 404
 * from `/models` still says the server is there; its requests then say what is wrong).
 */
export async function unansweredModels(models: ReadonlyArray<{ id: string; base_url: string }>, timeoutMs = 10_000): Promise<Unanswered[]> {
  const out = await Promise.all(
    models.map(async (m): Promise<Unanswered | undefined> => {
      try {
        const res = await fetch(`${m.base_url}/models`, { signal: AbortSignal.timeout(timeoutMs) });
        await res.body?.cancel();
        return undefined;
      } catch (err) {
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        const reason =
          (err as Error).name === 'TimeoutError'
            ? `no answer in ${timeoutMs / 1000} s`
            : (cause?.code ?? cause?.message ?? (err as Error).message);
        return { model: m.id, baseUrl: m.base_url, reason };
      }
    }),
  );
  return out.filter((u): u is Unanswered => u !== undefined);
}

/** A model name its endpoint does not serve, by the endpoint's own list. */
export interface UnknownModelName {
  /** The model's index in the config's `models`. */
  index: number;
  id: string;
  model: string;
  baseUrl: string;
  served: string[];
}

/**
 * The models whose `model` their endpoint's `GET /models` does not list. Only endpoints that list
 * some models are checked: one without a list (404, not JSON, a key refused, an empty list; some
 * servers, as llama.cpp's, take any name) passes, and its requests say what is wrong.
 */
export async function unknownModelNames(
  models: ReadonlyArray<{ id: string; base_url: string; model: string; api_key_env?: string | undefined }>,
  env: Record<string, string | undefined> = process.env,
  timeoutMs = 10_000,
): Promise<UnknownModelName[]> {
  const lists = new Map<string, Promise<string[] | null>>();
  const listOf = (baseUrl: string, key: string | undefined): Promise<string[] | null> => {
    const cacheKey = `${baseUrl}\n${key ?? ''}`;
    if (!lists.has(cacheKey))
      lists.set(
        cacheKey,
        (async () => {
          try {
            const res = await fetch(`${baseUrl}/models`, {
              signal: AbortSignal.timeout(timeoutMs),
              ...(key ? { headers: { authorization: `Bearer ${key}` } } : {}),
            });
            if (!res.ok) {
              await res.body?.cancel();
              return null;
            }
            const body = (await res.json()) as { data?: unknown };
            if (!Array.isArray(body.data)) return null;
            const ids = body.data.flatMap((m) =>
              m && typeof m === 'object' && typeof (m as { id?: unknown }).id === 'string' ? [(m as { id: string }).id] : [],
            );
            return ids.length ? ids : null;
          } catch {
            return null;
          }
        })(),
      );
    return lists.get(cacheKey)!;
  };
  const out: UnknownModelName[] = [];
  for (const [index, m] of models.entries()) {
    const served = await listOf(m.base_url, m.api_key_env ? env[m.api_key_env] : undefined);
    if (served && !served.includes(m.model)) out.push({ index, id: m.id, model: m.model, baseUrl: m.base_url, served });
  }
  return out;
}
