/**
 * The model's rerank answer: the import paths it kept, in its order. Only paths that were offered
 * count (a model may invent APIs); an answer naming none is `null` so the caller can fall back to
 * the retriever's order and record that it did.
 */
export function parseRerank(text: string, offered: readonly string[], keep: number): string[] | null {
  const found: Array<{ path: string; at: number }> = [];
  // Longest paths first, so `str.rstrip` is not also counted as `str.strip` inside it.
  const byLength = [...offered].sort((a, b) => b.length - a.length);
  const taken: Array<[number, number]> = [];
  for (const path of byLength) {
    const re = new RegExp(`(?<![\\w.])${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w])`, 'g');
    for (const m of text.matchAll(re)) {
      const start = m.index!;
      const end = start + path.length;
      if (taken.some(([s, e]) => start < e && end > s)) continue;
      taken.push([start, end]);
      if (!found.some((f) => f.path === path)) found.push({ path, at: start });
      else found.find((f) => f.path === path)!.at = Math.min(found.find((f) => f.path === path)!.at, start);
    }
  }
  if (found.length === 0) return null;
  return found
    .sort((a, b) => a.at - b.at)
    .slice(0, keep)
    .map((f) => f.path);
}
