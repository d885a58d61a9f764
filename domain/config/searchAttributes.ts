import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Custom search attributes, so progress is filterable and visible as columns in the Web UI.
 * The local stack registers them at start; a real cluster needs
 * `temporal operator search-attribute create` once with the same names and types.
 */
export const SA_KIND = defineSearchAttributeKey('ExploraKind', SearchAttributeType.KEYWORD);
export const SA_NAME = defineSearchAttributeKey('ExploraName', SearchAttributeType.KEYWORD);
export const SA_DONE = defineSearchAttributeKey('ExploraDone', SearchAttributeType.INT);
export const SA_TOTAL = defineSearchAttributeKey('ExploraTotal', SearchAttributeType.INT);
export const SA_CELL = defineSearchAttributeKey('ExploraCell', SearchAttributeType.KEYWORD);
export const SA_PASS_AT_1 = defineSearchAttributeKey('ExploraPassAt1', SearchAttributeType.DOUBLE);
/** Why a sweep is paused: 'user', or the budget it reached ('budget: ...'); '' while it runs. */
export const SA_PAUSED_FOR = defineSearchAttributeKey('ExploraPausedFor', SearchAttributeType.KEYWORD);

export const SEARCH_ATTRIBUTES: ReadonlyArray<{ name: string; type: 'Keyword' | 'Int' | 'Double' }> = [
  { name: SA_KIND.name, type: 'Keyword' },
  { name: SA_NAME.name, type: 'Keyword' },
  { name: SA_DONE.name, type: 'Int' },
  { name: SA_TOTAL.name, type: 'Int' },
  { name: SA_CELL.name, type: 'Keyword' },
  { name: SA_PASS_AT_1.name, type: 'Double' },
  { name: SA_PAUSED_FOR.name, type: 'Keyword' },
];
