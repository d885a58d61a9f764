import { Connection, Client } from '@temporalio/client';
import { Worker, Runtime, DefaultLogger } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
Runtime.install({ logger: new DefaultLogger('WARN') });
const before = process.argv[2]!;
const connection = await Connection.connect({ address: '127.0.0.1:7233' });
const client = new Client({ connection, namespace: 'explora-test' });
const query = `WorkflowType IN ('exploracoderTaskWorkflow','capirTaskWorkflow','selfRepairTaskWorkflow','sweepShardWorkflow','sweepCellWorkflow','sweepWorkflow') AND ExecutionStatus = 'Completed' AND StartTime < '${before}'`;
const histories = [];
for await (const w of client.workflow.list({ query })) {
  histories.push({ workflowId: w.workflowId, history: await client.workflow.getHandle(w.workflowId, w.runId).fetchHistory(), type: w.type });
}
console.log(`replaying ${histories.length} histories started before ${before}`);
const types: Record<string, number> = {};
for (const h of histories) types[h.type] = (types[h.type] ?? 0) + 1;
console.log(types);
let failed = 0;
for await (const r of Worker.runReplayHistories({ workflowsPath: fileURLToPath(new URL('./workflows/index.ts', import.meta.url)) }, histories.map(({ workflowId, history }) => ({ workflowId, history })))) {
  if (r.error) { failed++; console.log('FAILED', r.workflowId, String(r.error).slice(0, 300)); }
}
console.log(`replay failures: ${failed}`);
await connection.close();
