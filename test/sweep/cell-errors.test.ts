import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { describeSweepConfigDifferences, parseSweepConfig, sweepConfigHash } from '../../domain/sweep/config.js';
import {
  cellErrorHold,
  cellErrorStopOf,
  DEFAULT_CELL_ERROR_STOP,
  describeCellErrorHold,
  type CellErrorStop,
} from '../../domain/sweep/cellErrors.js';
import { cellErrorStopInput } from '../../scripts/lib/sweep-input.js';
import { minimalSweepConfig, sweepConfigIssues } from '../support/sweep-config.js';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const withStop = (stop: unknown) => ({ ...minimalSweepConfig(), stop_cell_on_errors: stop });

describe('stop_cell_on_errors: in the sweep config', () => {
  it('is read as the cell workflow takes it: the defaults when absent, none when false', () => {
    expect(cellErrorStopOf(parseSweepConfig(minimalSweepConfig()))).toEqual(DEFAULT_CELL_ERROR_STOP);
    expect(cellErrorStopOf(parseSweepConfig(withStop(false)))).toBeNull();
    expect(cellErrorStopInput(parseSweepConfig(withStop(false)))).toEqual({});
    expect(cellErrorStopOf(parseSweepConfig(withStop({ max_errors: 3 })))).toEqual({
      maxErrors: 3,
      maxErrorFraction: null,
      minSamples: 20,
    });
    expect(cellErrorStopOf(parseSweepConfig(withStop({ max_error_fraction: 0.2, min_samples: 50 })))).toEqual({
      maxErrors: null,
      maxErrorFraction: 0.2,
      minSamples: 50,
    });
  });

  it('refuses bad limits, naming the field', () => {
    expect(sweepConfigIssues(withStop({ max_errors: 0 }))).toEqual([
      { path: 'stop_cell_on_errors.max_errors', message: 'must be >= 1, got 0' },
    ]);
    expect(sweepConfigIssues(withStop({ max_error_fraction: 1.5 }))).toEqual([
      { path: 'stop_cell_on_errors.max_error_fraction', message: 'must be <= 1, got 1.5' },
    ]);
    expect(sweepConfigIssues(withStop({}))).toEqual([
      {
        path: 'stop_cell_on_errors',
        message: 'give max_errors, max_error_fraction or both (or false: no cell ever stops on errors)',
      },
    ]);
    expect(sweepConfigIssues(withStop({ max_errors: 5, min_samples: 10 }))).toEqual([
      { path: 'stop_cell_on_errors.min_samples', message: 'min_samples only counts for max_error_fraction: give it too' },
    ]);
    expect(sweepConfigIssues(withStop({ max_error: 5 }))).toContainEqual({
      path: 'stop_cell_on_errors.max_error',
      message: 'unknown key (did you mean max_errors?)',
    });
    expect(sweepConfigIssues(withStop(true))[0]!.path).toBe('stop_cell_on_errors');
  });

  it('changes neither the config hash nor makes a running sweep another config', () => {
    const plain = parseSweepConfig(minimalSweepConfig());
    const stopped = parseSweepConfig(withStop({ max_errors: 3 }));
    expect(sweepConfigHash(stopped, sha)).toBe(sweepConfigHash(plain, sha));
    expect(describeSweepConfigDifferences(plain, stopped)).toEqual([]);
  });
});

describe('a cell over its error limit', () => {
  const count: CellErrorStop = { maxErrors: 3, maxErrorFraction: null, minSamples: 20 };
  const share: CellErrorStop = { maxErrors: null, maxErrorFraction: 0.5, minSamples: 10 };

  it('holds at the count', () => {
    expect(cellErrorHold('c', count, { errors: 2, attempted: 2, lastError: 'x' })).toBeNull();
    expect(cellErrorHold('c', count, { errors: 3, attempted: 90, lastError: 'x' })).toEqual({
      cellId: 'c',
      limit: 'max_errors 3',
      errors: 3,
      attempted: 90,
      lastError: 'x',
    });
  });

  it('holds at the share, once enough samples were attempted', () => {
    expect(cellErrorHold('c', share, { errors: 9, attempted: 9, lastError: 'x' })).toBeNull();
    expect(cellErrorHold('c', share, { errors: 10, attempted: 10, lastError: 'x' })?.limit).toBe('max_error_fraction 0.5');
    expect(cellErrorHold('c', share, { errors: 10, attempted: 21, lastError: 'x' })).toBeNull();
    expect(cellErrorHold('c', share, { errors: 0, attempted: 100, lastError: '' })).toBeNull();
  });

  it('says which cell, the count and share, the limit and the last error', () => {
    const hold = cellErrorHold('ds.m.direct.t0', count, { errors: 4, attempted: 8, lastError: '404 model not found' })!;
    expect(describeCellErrorHold(hold)).toBe(
      'errors: cell ds.m.direct.t0 stopped after 4 errors in 8 samples (50%), over stop_cell_on_errors.max_errors 3; last error: 404 model not found',
    );
  });
});
