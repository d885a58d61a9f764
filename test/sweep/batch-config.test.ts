/** models[i].batch in the sweep config: its defaults, its errors naming the field, its price, and the hash it leaves alone. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BATCH_MAX_BYTES, BATCH_MAX_REQUESTS, batchEndpointOf } from '../../domain/llm/batchMode.js';
import { forecastPrices, pricesOf } from '../../domain/sweep/budget.js';
import { parseSweepConfig, sweepConfigHash } from '../../domain/sweep/config.js';
import { minimalSweepConfig, sweepConfigIssues } from '../support/sweep-config.js';
import { registerMethodKind } from '../../domain/methods/registry.js';
import { ragMethod } from '../../methods/rag/definition.js';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const withModel = (extra: Record<string, unknown>, top: Record<string, unknown> = {}) => {
  const c = { ...minimalSweepConfig(), ...top };
  c.models = [{ ...(minimalSweepConfig().models as Array<Record<string, unknown>>)[0], ...extra }];
  return c;
};
const PRICE = { input_per_mtok: 2, output_per_mtok: 8, currency: 'USD' };
const BATCH_PRICE = { input_per_mtok: 1, output_per_mtok: 4, currency: 'USD' };

describe('models[i].batch', () => {
  it("fills in OpenAI's limits and the polling defaults, and the endpoint carries them", () => {
    const model = parseSweepConfig(withModel({ batch: {} })).models[0]!;
    expect(model.batch).toEqual({
      max_requests: BATCH_MAX_REQUESTS,
      max_bytes: BATCH_MAX_BYTES,
      retry_rounds: 1,
      poll_s: 30,
      max_poll_s: 600,
      gather: 'cell',
    });
    expect(batchEndpointOf({ ...model.batch!, live_after_s: 3600 })).toEqual({
      maxRequests: BATCH_MAX_REQUESTS,
      maxBytes: BATCH_MAX_BYTES,
      liveAfterS: 3600,
      retryRounds: 1,
      pollS: 30,
      maxPollS: 600,
    });
    // Gathered by model: the endpoint says so (each cell its own batches otherwise: nothing).
    expect(batchEndpointOf({ ...model.batch!, gather: 'model' })).toMatchObject({ gather: 'model' });
    expect(sweepConfigIssues(withModel({ batch: { gather: 'sweep' } }))).toEqual([
      { path: 'models[0].batch.gather', message: expect.stringContaining('cell') as string },
    ]);
  });

  it('refuses limits beyond the provider’s, unknown keys and a poll back-off shorter than its start, naming the field', () => {
    expect(sweepConfigIssues(withModel({ batch: { max_requests: 50_001 } }))).toEqual([
      { path: 'models[0].batch.max_requests', message: 'must be <= 50000, got 50001' },
    ]);
    expect(sweepConfigIssues(withModel({ batch: { max_request: 10 } }))).toContainEqual({
      path: 'models[0].batch.max_request',
      message: 'unknown key (did you mean max_requests?)',
    });
    expect(sweepConfigIssues(withModel({ batch: { poll_s: 60, max_poll_s: 10 } }))).toEqual([
      { path: 'models[0].batch.max_poll_s', message: 'max_poll_s must be at least poll_s' },
    ]);
  });

  it('answers every method, the multi-round ones round by round; gather: model is refused for those, naming the method', () => {
    const methods = ['direct', 'rag', 'self-repair', 'capir', 'capir-self-repair', 'exploracoder', 'exploracoder-debug'];
    expect(sweepConfigIssues(withModel({ batch: {} }, { methods })).filter((i) => i.path.startsWith('models'))).toEqual([]);
    expect(parseSweepConfig(withModel({ batch: {} })).models[0]!.batch).toBeDefined();
    // A multi-round method's cells send their rounds themselves: gathering by model is refused for them.
    const gathered = sweepConfigIssues(withModel({ batch: { gather: 'model' } }, { methods }));
    expect(gathered.filter((i) => i.path.startsWith('models'))).toEqual(
      [2, 3, 4, 5, 6].map((mi) => ({
        path: 'models[0].batch.gather',
        message: expect.stringContaining(`methods[${mi}] (${methods[mi]})`),
      })),
    );
  });

  it('refuses a plug-in method kind it does not know, naming models[i].batch, the method and its kind', () => {
    registerMethodKind({ ...ragMethod, kind: 'batch-test-plugin', names: { 'batch-test-plugin': ragMethod.names.rag } });
    expect(
      sweepConfigIssues(withModel({ batch: {} }, { methods: ['rag', 'batch-test-plugin'] })).filter((i) => i.path.startsWith('models')),
    ).toEqual([
      { path: 'models[0].batch', message: expect.stringContaining('methods[1] (batch-test-plugin) is of kind batch-test-plugin') },
    ]);
  });

  it('prices the model at its live price with its batch price beside, which needs a listed price of the same currency', () => {
    const config = parseSweepConfig(withModel({ price: PRICE, batch: { price: BATCH_PRICE } }));
    const id = config.models[0]!.id;
    expect(pricesOf(config.models)).toEqual({ [id]: { ...PRICE, batch: BATCH_PRICE } });
    // The dry run's forecast counts a batch-mode model at its batch price.
    expect(forecastPrices(pricesOf(config.models)!)).toEqual({ [id]: BATCH_PRICE });
    // Without a batch price of its own, batches cost the listed price.
    const unpriced = parseSweepConfig(withModel({ price: PRICE, batch: {} }));
    expect(pricesOf(unpriced.models)).toEqual({ [id]: { ...PRICE, batch: PRICE } });
    expect(sweepConfigIssues(withModel({ batch: { price: BATCH_PRICE } }))).toEqual([
      { path: 'models[0].batch.price', message: 'needs models[0].price too: the batch price is what the listed price costs in batches' },
    ]);
    expect(sweepConfigIssues(withModel({ price: PRICE, batch: { price: { ...BATCH_PRICE, currency: 'EUR' } } }))).toEqual([
      { path: 'models[0].batch.price.currency', message: "must be the model's price's currency (USD), got EUR" },
    ]);
  });

  it('leaves the config hash as it was: the same requests, answered another way', () => {
    const plain = parseSweepConfig(withModel({}));
    const batched = parseSweepConfig(withModel({ batch: { max_requests: 10 } }));
    expect(sweepConfigHash(batched, sha)).toBe(sweepConfigHash(plain, sha));
  });
});
