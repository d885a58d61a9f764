import { describe, expect, it } from 'vitest';
import { generateLines } from '../../domain/pbe/generate.js';
import { resolvePbeParams } from '../../domain/pbe/params.js';

describe('scale', () => {
  it('generates 20,000 default tasks in-process', () => {
    const params = resolvePbeParams({ count: 20_000 });
    let count = 0;
    let bytes = 0;
    for (const line of generateLines(params, 0, params.count)) {
      if (count % 4999 === 0) expect(JSON.parse(line).task_id).toBe(`pbe-world/${String(count).padStart(6, '0')}`);
      count++;
      bytes += line.length;
    }
    expect(count).toBe(20_000);
    expect(bytes).toBeGreaterThan(20_000 * 500);
  });
});
