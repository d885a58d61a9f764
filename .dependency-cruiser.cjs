/**
 * Import rules between the project's folders, checked in CI (`npm run check:deps`):
 * - domain/ is pure: it imports only domain/ (and libraries), never I/O or orchestration;
 * - activities/ and infra/ never import workflows/ (workflows orchestrate activities, not the reverse);
 * - infra/ never imports activities/ (activities are built on infra, not the reverse);
 * - no import cycles anywhere;
 * - in the sandbox, the process runner and its plain toolchains (infra/sandbox/process/) never import the
 *   warm toolchains (infra/sandbox/warm/), and neither imports the registry above both (toolchainRegistry.ts).
 */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'domain/ imports only domain/ and npm packages',
      severity: 'error',
      from: { path: '^domain/' },
      to: { pathNot: ['^domain/', 'node_modules'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'domain-no-node-io',
      comment: 'domain/ uses no Node built-in modules (I/O belongs to activities/ and infra/)',
      severity: 'error',
      from: { path: '^domain/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'activities-not-workflows',
      severity: 'error',
      from: { path: '^(activities|infra)/' },
      to: { path: '^workflows/' },
    },
    {
      name: 'infra-not-activities',
      severity: 'error',
      from: { path: '^infra/' },
      to: { path: '^activities/' },
    },
    {
      name: 'sandbox-process-not-warm',
      comment: 'the warm toolchains wrap the plain ones (infra/sandbox/process/), never the reverse',
      severity: 'error',
      from: { path: '^infra/sandbox/process/' },
      to: { path: '^infra/sandbox/warm/' },
    },
    {
      name: 'sandbox-toolchain-registry-on-top',
      comment: 'toolchainRegistry.ts combines the plain and the warm toolchains; they never import it',
      severity: 'error',
      from: { path: '^infra/sandbox/(process|warm)/' },
      to: { path: '^infra/sandbox/toolchainRegistry' },
    },
    {
      name: 'no-cycles',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js'] },
  },
};
