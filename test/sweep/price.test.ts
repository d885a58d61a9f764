import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { describeSweepConfigDifferences, parseSweepConfig, sweepConfigHash } from '../../domain/sweep/config.js';
import { formatMoney, sumMoney, tokenCost } from '../../domain/sweep/price.js';
import { minimalSweepConfig, sweepConfigIssues } from '../support/sweep-config.js';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const withModel = (extra: Record<string, unknown>) => {
  const c = minimalSweepConfig();
  c.models = [{ ...(c.models as Array<Record<string, unknown>>)[0], ...extra }];
  return c;
};
const PRICE = { input_per_mtok: 3, output_per_mtok: 15, currency: 'USD' };

describe('models[i].price', () => {
  it('is read into the resolved model', () => {
    expect(parseSweepConfig(withModel({ price: PRICE })).models[0]!.price).toEqual(PRICE);
    expect(parseSweepConfig(withModel({})).models[0]).not.toHaveProperty('price');
  });

  it('refuses a price without a currency, a negative one, and unknown keys, naming the field', () => {
    expect(sweepConfigIssues(withModel({ price: { input_per_mtok: 3, output_per_mtok: 15 } }))).toEqual([
      { path: 'models[0].price.currency', message: 'is required' },
    ]);
    expect(sweepConfigIssues(withModel({ price: { ...PRICE, output_per_mtok: -1 } }))).toEqual([
      { path: 'models[0].price.output_per_mtok', message: 'must be >= 0, got -1' },
    ]);
    expect(sweepConfigIssues(withModel({ price: { ...PRICE, input_per_mtoks: 1 } }))).toContainEqual({
      path: 'models[0].price.input_per_mtoks',
      message: 'unknown key (did you mean input_per_mtok?)',
    });
    expect(sweepConfigIssues(withModel({ price: { ...PRICE, currency: '$' } }))[0]!.path).toBe('models[0].price.currency');
  });

  it('leaves the config hash (and so the default sweep id) as it was: a price changes no request', () => {
    const plain = parseSweepConfig(withModel({}));
    const priced = parseSweepConfig(withModel({ price: PRICE }));
    const repriced = parseSweepConfig(withModel({ price: { ...PRICE, output_per_mtok: 60 } }));
    expect(sweepConfigHash(priced, sha)).toBe(sweepConfigHash(plain, sha));
    expect(sweepConfigHash(repriced, sha)).toBe(sweepConfigHash(plain, sha));
    expect(describeSweepConfigDifferences(plain, repriced)).toEqual([]);
    const other = parseSweepConfig(withModel({ price: PRICE, max_tokens: 100 }));
    expect(sweepConfigHash(other, sha)).not.toBe(sweepConfigHash(plain, sha));
  });
});

describe('money', () => {
  it('prices tokens per million, per currency', () => {
    // 1.2M prompt tokens at 3/M + 0.4M completion tokens at 15/M = 3.6 + 6 = 9.6
    expect(tokenCost(PRICE, 1_200_000, 400_000).amount).toBeCloseTo(9.6, 12);
    expect(tokenCost(PRICE, 1_200_000, 400_000).currency).toBe('USD');
    expect(
      sumMoney([
        { amount: 1, currency: 'USD' },
        { amount: 2, currency: 'EUR' },
        { amount: 0.5, currency: 'USD' },
      ]),
    ).toEqual([
      { amount: 1.5, currency: 'USD' },
      { amount: 2, currency: 'EUR' },
    ]);
  });

  it('shows small amounts with two significant digits', () => {
    expect(formatMoney({ amount: 1234.567, currency: 'USD' })).toBe('1,234.57 USD');
    expect(formatMoney({ amount: 0.0042, currency: 'EUR' })).toBe('0.0042 EUR');
    expect(formatMoney({ amount: 0, currency: 'USD' })).toBe('0.00 USD');
  });
});
