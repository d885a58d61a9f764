/** Bounded fan-out in workflow code: many activities or children, a few at a time, results in order. */
import { condition } from '@temporalio/workflow';

export interface Window {
  width: number;
  /** False while paused: nothing new starts. Absent: always open. */
  open?: () => boolean;
}

/** run(item) for every item, at most `width` at once and none while the window is shut; results in the items' order. */
export async function windowed<I, T>(items: readonly I[], window: Window, run: (item: I) => Promise<T>): Promise<T[]> {
  const out = new Array<T>(items.length);
  const open = window.open ?? (() => true);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      if (!open()) await condition(open);
      if (next >= items.length) return;
      const i = next++;
      out[i] = await run(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(window.width, items.length) }, lane));
  return out;
}
