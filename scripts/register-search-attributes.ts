/**
 * `tsx scripts/register-search-attributes.ts`: registers the sweeps' search attributes on the
 * configured namespace (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE), where the operator API allows it,
 * and waits until the server serves them. Where it does not (Temporal Cloud, or no operator
 * permission), it prints the exact commands an operator runs instead, and exits 1.
 */
import { loadConfig } from '../infra/config.js';
import { connectTemporal } from '../infra/temporal/connection.js';
import { SEARCH_ATTRIBUTES } from '../domain/config/searchAttributes.js';
import { registerSearchAttributes, searchAttributeCommands, waitForSearchAttributes } from '../infra/temporal/searchAttributes.js';

const { connection, close, namespace, address } = await (async () => {
  try {
    const env = loadConfig(process.env);
    const { connection, close } = await connectTemporal(env, { connectTimeout: 5000 });
    return { connection, close, namespace: env.temporal.namespace, address: env.temporal.address };
  } catch (err) {
    console.error(`register-search-attributes: ${(err as Error).message}`);
    process.exit(1);
  }
})();
try {
  const added = await registerSearchAttributes(connection, namespace);
  await waitForSearchAttributes(connection, namespace);
  console.log(
    added.length
      ? `registered ${added.map((a) => a.name).join(', ')} on namespace ${namespace}`
      : `namespace ${namespace} has every search attribute the sweeps use`,
  );
} catch (err) {
  console.error(
    `register-search-attributes: could not register them on namespace ${namespace} (${(err as Error).message.split('\n')[0]}).`,
  );
  console.error(
    'Run these with the rights to (Temporal Cloud: tcld namespace search-attributes add, or the Cloud UI, with the same names and types):',
  );
  for (const line of searchAttributeCommands(namespace, SEARCH_ATTRIBUTES)) console.error(`  ${line} --address ${address}`);
  process.exitCode = 1;
} finally {
  await close();
}
