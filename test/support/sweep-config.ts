/** Sweep configs as test values: the smallest valid one, and the issues a config is refused with. */
import { expect } from 'vitest';
import { parseSweepConfig, SweepConfigError, type SweepConfigIssue } from '../../domain/sweep/config.js';

/** The smallest valid config, as a JS value, to vary field by field. */
export function minimalSweepConfig(): Record<string, unknown> {
  return {
    datasets: [{ name: 'humaneval', family: 'humaneval', path: 'HumanEval.jsonl' }],
    models: [{ id: 'm', base_url: 'http://127.0.0.1:8080/v1', model: 'x' }],
    methods: ['direct'],
    temperatures: [0.2],
    n_samples: 1,
    k: [1],
  };
}

/** The issues parseSweepConfig refuses `value` with (a valid value fails the test). */
export function sweepConfigIssues(value: unknown): SweepConfigIssue[] {
  try {
    parseSweepConfig(value, 'test.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(SweepConfigError);
    return (error as SweepConfigError).issues;
  }
  throw new Error(`accepted ${JSON.stringify(value)}`);
}
