/**
 * The sweeps' search attributes on a namespace: which are missing, registering them where the
 * operator API allows it, and the commands an operator runs where it does not (Temporal Cloud, or
 * a cluster whose operator API this client may not call). A sweep on a namespace without them would
 * fail its first workflow task on every attempt; start-sweep refuses it at once instead.
 */
import type { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { SEARCH_ATTRIBUTES } from '../../domain/config/searchAttributes.js';

export type SearchAttribute = (typeof SEARCH_ATTRIBUTES)[number];

/** The sweeps' attributes the namespace lacks. */
export async function missingSearchAttributes(connection: Connection, namespace: string): Promise<SearchAttribute[]> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  return SEARCH_ATTRIBUTES.filter((a) => !(a.name in (customAttributes ?? {})));
}

/** Registers those of the sweeps' search attributes the namespace lacks. */
export async function registerSearchAttributes(connection: Connection, namespace: string): Promise<SearchAttribute[]> {
  const missing = await missingSearchAttributes(connection, namespace);
  if (missing.length) {
    const { IndexedValueType } = proto.temporal.api.enums.v1;
    const typeOf = {
      Keyword: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
      Int: IndexedValueType.INDEXED_VALUE_TYPE_INT,
      Double: IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
    };
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((a) => [a.name, typeOf[a.type]])),
    });
  }
  return missing;
}

/**
 * Waits until the frontend serves every attribute on the namespace (new attributes reach its
 * caches a few seconds after they are stored): a count query naming them all succeeds.
 */
export async function waitForSearchAttributes(connection: Connection, namespace: string, timeoutMs = 60_000): Promise<void> {
  const query = SEARCH_ATTRIBUTES.map((a) => `${a.name} IS NULL`).join(' AND ');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await connection.workflowService.countWorkflowExecutions({ namespace, query });
      return;
    } catch (err) {
      if (Date.now() > deadline)
        throw new Error(`the search attributes of namespace ${namespace} are not served after ${timeoutMs / 1000}s: ${String(err)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/** The Temporal CLI commands that register `attributes` on `namespace`. */
export function searchAttributeCommands(namespace: string, attributes: readonly SearchAttribute[]): string[] {
  return attributes.map((a) => `temporal operator search-attribute create --namespace ${namespace} --name ${a.name} --type ${a.type}`);
}
