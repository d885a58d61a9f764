import { describe, expect, it } from 'vitest';
import { finishedSweepCells, parseStoredCellSummary, summaryCoversMode } from '../../domain/sweep/finished.js';

const cell = (statusCounts: Record<string, number>) => ({
  cell: { cell: 'ds.m.direct.t0.2' },
  tasks: 2,
  samples: 4,
  passAtK: { 'pass@1': 0.5 },
  successAtK: { 'success@1': 1 },
  droppedK: [],
  statusCounts,
  cost: { calls: 4, promptTokens: 10, completionTokens: 5, sandboxRuns: 4, wallSeconds: 305.7 },
  resultsKey: 'sweeps/s/cells/ds.m.direct.t0.2/results.json',
});
const stored = (cells: unknown[]) => ({ sweep_id: 's', config_sha256: 'abc', cells });

describe('whether stored results answer a start', () => {
  it('a finished full sweep answers a full and a generation-only start; samples only saved answer a generation-only one alone', () => {
    const executed = cell({ passed: 2, failed: 2 });
    const saved = cell({ not_executed: 4 });
    for (const mode of ['full', 'generation-only', 'evaluate-only'] as const) expect(summaryCoversMode(executed, mode)).toBe(true);
    expect(summaryCoversMode(saved, 'generation-only')).toBe(true);
    expect(summaryCoversMode(saved, 'full')).toBe(false);
    expect(finishedSweepCells(stored([executed, saved]), { sweepId: 's', configHash: 'abc', mode: 'full' })).toBeNull();
    expect(finishedSweepCells(stored([executed, saved]), { sweepId: 's', configHash: 'abc', mode: 'generation-only' })).toHaveLength(2);
  });

  it("the stored cells come back as stored (the first run's wall time); another sweep, config or shape is no answer", () => {
    const cells = finishedSweepCells(stored([cell({ passed: 4 })]), { sweepId: 's', configHash: 'abc', mode: 'full' });
    expect(cells?.[0]?.cost.wallSeconds).toBe(305.7);
    expect(finishedSweepCells(stored([cell({ passed: 4 })]), { sweepId: 'other', configHash: 'abc', mode: 'full' })).toBeNull();
    expect(finishedSweepCells(stored([cell({ passed: 4 })]), { sweepId: 's', configHash: 'changed', mode: 'full' })).toBeNull();
    expect(finishedSweepCells(stored([]), { sweepId: 's', configHash: 'abc', mode: 'full' })).toBeNull();
    expect(
      finishedSweepCells({ sweep_id: 's', config_sha256: 'abc', cells: [{ cell: {} }] }, { sweepId: 's', configHash: 'abc', mode: 'full' }),
    ).toBeNull();
    expect(parseStoredCellSummary({ ...cell({}), cost: null })).toBeNull();
    expect(parseStoredCellSummary(cell({}))?.resultsKey).toBe('sweeps/s/cells/ds.m.direct.t0.2/results.json');
  });
});
