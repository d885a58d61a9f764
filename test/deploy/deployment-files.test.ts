/**
 * The example deployment (deploy/: Dockerfile, compose file, Kubernetes manifests) names only
 * what exists: queues the worker serves, its flags, settings explora or the AWS SDK reads, files
 * of the repository; its YAML parses, and the sweep config it ships loads. (The images themselves
 * are not built here: no registry to pull the base image from.)
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ENV_DOC } from '../../domain/config/env.js';
import { TEMPORAL_ENV_VARS } from '../../domain/config/temporalConnection.js';
import { loadSweepConfig } from '../../domain/sweep/config.js';
import { PROJECT_ROOT } from '../../stack/local-stack.js';
import { npmScriptNodeFlags } from '../../scripts/lib/node-flags.js';
import { QUEUE_ROLES, STOP_GRACE_MS } from '../../workers/runWorkers.js';

const deploy = path.join(PROJECT_ROOT, 'deploy');
const read = (rel: string) => readFileSync(path.join(deploy, rel), 'utf8');
const workerSource = readFileSync(path.join(PROJECT_ROOT, 'workers/main.ts'), 'utf8');

/** Variables the AWS SDK's credential chain and region lookup read. */
const AWS_VARS = [
  'AWS_REGION',
  'AWS_PROFILE',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_SHARED_CREDENTIALS_FILE',
  'AWS_CONFIG_FILE',
  'AWS_ROLE_ARN',
  'AWS_WEB_IDENTITY_TOKEN_FILE',
];
const KNOWN_VARS = new Set<string>([...ENV_DOC.map(([name]) => name), ...TEMPORAL_ENV_VARS, ...AWS_VARS, 'NODE_ENV']);

function yamlDocs(rel: string): unknown[] {
  const docs = parseAllDocuments(read(rel), { merge: true });
  for (const d of docs) expect(d.errors, `${rel}: ${d.errors.join('; ')}`).toEqual([]);
  return docs.map((d) => d.toJS({ maxAliasCount: 100 }));
}

/** The worker's argument lists: every `--queues X` names known queues, every flag is the worker's. */
function checkWorkerArgs(args: string[], where: string): void {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('--')) continue;
    expect(workerSource, `${where}: ${a} is not a flag of workers/main.ts`).toContain(`'${a} `);
    if (a === '--queues') for (const q of args[i + 1]!.split(',')) expect(QUEUE_ROLES, `${where}: unknown queue ${q}`).toContain(q);
  }
}

function checkVar(name: string, where: string, secrets: Set<string>): void {
  if (secrets.has(name)) return; // named by a sweep config's api_key_env
  expect(KNOWN_VARS.has(name) || name.startsWith('TEMPORAL_GRPC_META_'), `${where}: ${name} is read by nothing`).toBe(true);
}

describe('the example deployment', () => {
  it('the env example sets only settings that are read', () => {
    const names = read('explora.env.example')
      .split('\n')
      .filter((l) => /^[A-Z_]+=/.test(l))
      .map((l) => l.slice(0, l.indexOf('=')));
    expect(names.length).toBeGreaterThan(5);
    for (const n of names) checkVar(n, 'explora.env.example', new Set());
  });

  it('compose: each service serves known queues with known flags and settings; only the sandbox is unconfined', () => {
    const [compose] = yamlDocs('compose.yaml') as [
      {
        services: Record<
          string,
          { command: string[]; environment?: Record<string, string>; cap_add?: string[]; security_opt?: string[]; env_file?: string[] }
        >;
      },
    ];
    const served = new Set<string>();
    for (const [name, svc] of Object.entries(compose.services)) {
      checkWorkerArgs(svc.command, `compose ${name}`);
      svc.command[svc.command.indexOf('--queues') + 1]!.split(',').forEach((q) => served.add(q));
      for (const v of Object.keys(svc.environment ?? {})) checkVar(v, `compose ${name}`, new Set(['OPENAI_API_KEY']));
      expect(svc.env_file).toEqual(['explora.env']);
      const unconfined = (svc.security_opt ?? []).includes('seccomp=unconfined');
      expect(unconfined, `compose ${name}`).toBe(name === 'sandbox');
    }
    expect([...served].sort()).toEqual([...QUEUE_ROLES].sort());
  });

  it('Kubernetes: workers serve every queue with known flags; ConfigMap keys are settings; the sweep config loads', () => {
    const docs = readdirSync(path.join(deploy, 'k8s')).flatMap((f) => yamlDocs(`k8s/${f}`)) as Array<{
      kind: string;
      metadata: { name: string };
      data?: Record<string, string>;
      stringData?: Record<string, string>;
      spec?: any;
    }>;
    const llmSecrets = new Set(Object.keys(docs.find((d) => d.metadata.name === 'explora-llm')!.stringData!));
    const env = docs.find((d) => d.kind === 'ConfigMap' && d.metadata.name === 'explora-env')!;
    for (const k of Object.keys(env.data!)) checkVar(k, 'ConfigMap explora-env', llmSecrets);
    const sweep = docs.find((d) => d.kind === 'ConfigMap' && d.metadata.name === 'explora-sweep')!;
    const config = loadSweepConfig(sweep.data!['sweep.yaml']!, 'explora-sweep/sweep.yaml');
    for (const m of config.models) if (m.api_key_env) expect(llmSecrets).toContain(m.api_key_env);

    const served = new Set<string>();
    const names = new Set(docs.map((d) => d.metadata.name));
    for (const d of docs.filter((x) => x.kind === 'Deployment')) {
      const pod = d.spec.template.spec;
      const [container] = pod.containers;
      checkWorkerArgs(container.args, d.metadata.name);
      const queues: string[] = container.args[container.args.indexOf('--queues') + 1].split(',');
      queues.forEach((q) => served.add(q));
      // Everything it refers to is defined here.
      for (const from of container.envFrom ?? []) expect(names).toContain(from.configMapRef?.name ?? from.secretRef?.name);
      for (const v of pod.volumes ?? []) if (v.secret || v.configMap) expect(names).toContain(v.secret?.secretName ?? v.configMap?.name);
      const sweepFlag = container.args.indexOf('--sweep-config');
      if (sweepFlag >= 0)
        expect(container.volumeMounts.some((m: { mountPath: string }) => container.args[sweepFlag + 1].startsWith(`${m.mountPath}/`))).toBe(
          true,
        );
      // The certificate paths the settings name are where the secret is mounted.
      for (const k of ['TEMPORAL_TLS_SERVER_CA_CERT_PATH', 'TEMPORAL_TLS_CLIENT_CERT_PATH', 'TEMPORAL_TLS_CLIENT_KEY_PATH']) {
        const mount = container.volumeMounts.find((m: { name: string }) => m.name === 'temporal-client');
        expect(env.data![k]!.startsWith(`${mount.mountPath}/`), `${d.metadata.name}: ${k}`).toBe(true);
        const secret = docs.find((x) => x.metadata.name === 'explora-temporal-client')!;
        expect(Object.keys(secret.stringData!)).toContain(path.basename(env.data![k]!));
      }
      const caps: string[] = container.securityContext?.capabilities?.add ?? [];
      expect(caps.includes('SYS_ADMIN'), d.metadata.name).toBe(queues.includes('sandbox'));
      if (queues.includes('sandbox')) {
        // Sandbox replicas are sized by cores: whole CPUs, and slots = CPUs + 2.
        const cpus = Number(container.resources.limits.cpu);
        expect(Number(container.args[container.args.indexOf('--sandbox-concurrency') + 1])).toBe(cpus + 2);
      }
    }
    expect([...served].sort()).toEqual([...QUEUE_ROLES].sort());
  });

  it("Kubernetes: the image's entry point is kept, and SIGKILL comes only after the worker's own stop deadline", () => {
    const docs = readdirSync(path.join(deploy, 'k8s')).flatMap((f) => yamlDocs(`k8s/${f}`)) as Array<{
      kind: string;
      metadata: { name: string };
      spec?: any;
    }>;
    const deployments = docs.filter((d) => d.kind === 'Deployment');
    expect(deployments.length).toBeGreaterThan(0);
    for (const d of deployments) {
      const pod = d.spec.template.spec;
      for (const c of pod.containers) expect(c.command, `${d.metadata.name}: a command would replace the entry point`).toBeUndefined();
      expect(pod.terminationGracePeriodSeconds, d.metadata.name).toBeGreaterThan(STOP_GRACE_MS / 1000);
    }
  });

  it('long-lived processes run without a signal relay that can kill them: npm scripts exec node on bin/run.mjs', () => {
    const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    for (const name of ['worker', 'sweep', 'generate', 'model-server', 'stack:up', 'stack:down', 'stack:status']) {
      // exec: npm's `sh -c` would otherwise take the SIGTERM npm passes on and die, the process never seeing it.
      expect(pkg.scripts[name], name).toMatch(/^exec node (--\S+ )*bin\/run\.mjs \S+\.ts\b/);
    }
    expect(pkg.scripts.start).toMatch(/&& exec node (--\S+ )*bin\/run\.mjs scripts\/default-sweep\.ts$/);
    for (const [name, script] of Object.entries(pkg.scripts)) expect(script, name).not.toMatch(/(^|&&\s*|;\s*)(npx )?tsx /);
    // Nor do the commands that start others (default-sweep starts start-sweep); benchmarks aside.
    for (const dir of ['scripts', 'scripts/lib', 'stack', 'stack/model-server', 'bin', 'workers']) {
      for (const f of readdirSync(path.join(PROJECT_ROOT, dir)).filter((x) => /\.(ts|mjs)$/.test(x))) {
        expect(readFileSync(path.join(PROJECT_ROOT, dir, f), 'utf8'), `${dir}/${f}`).not.toMatch(/node_modules\/\.bin\/tsx/);
      }
    }
  });

  it('the Dockerfile copies folders that exist and runs the worker entry point', () => {
    const dockerfile = read('worker.Dockerfile');
    for (const m of dockerfile.matchAll(/^COPY (\S+(?: \S+)*) \S+$/gm)) {
      for (const src of m[1]!.split(' ')) expect(existsSync(path.join(PROJECT_ROOT, src)), `COPY ${src}`).toBe(true);
    }
    for (const m of dockerfile.matchAll(/bash (scripts\/\S+\.sh)/g)) expect(existsSync(path.join(PROJECT_ROOT, m[1]!)), m[1]).toBe(true);
    // node itself runs the worker, under tini: no `tsx` CLI, which relays SIGTERM and kills its child
    // 30 ms later, before the tasks in flight finish and the leases are removed.
    // With the node flags `npm run worker` gives it (V8's young generation), so the image's worker
    // runs as an operator's does.
    expect(JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)![1]!)).toEqual([
      '/usr/bin/tini',
      '--',
      'node',
      ...npmScriptNodeFlags('worker', 'workers/main.ts'),
      'bin/run.mjs',
      'workers/main.ts',
    ]);
    checkWorkerArgs(JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)![1]!), 'CMD');
    expect(dockerfile).toMatch(/bubblewrap/);
  });
});
