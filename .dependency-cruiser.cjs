/**
 * Import rules between the project's folders, checked in CI (`npm run check:deps`):
 * - domain/ is pure: it imports only domain/, the methods' pure files (and libraries), never I/O or
 *   orchestration; but a family's test fixtures (domain/families/<id>/fixtures.ts, imported by tests
 *   alone) may use test/support/'s rows, and nothing outside test/ imports them;
 * - a method's folder methods/<kind>/ has three faces, by file name: `workflow.ts` (runs in the
 *   workflow sandbox), `activities.ts` and `trace.ts` (run in a worker, do I/O), and every other
 *   file pure (definition, prompts, parsing: importable by the planner without Temporal or I/O);
 *   methods/workflows.ts and methods/activities.ts list the faces and count as them;
 * - workflow code (workflows/ and the methods' workflow faces) imports activities, infra and the
 *   methods' worker faces for their types only, and no Node built-ins;
 * - activities/ and infra/ never import workflows/ (workflows orchestrate activities, not the reverse);
 * - infra/ never imports activities/ (activities are built on infra, not the reverse);
 * - no import cycles anywhere;
 * - in the sandbox, the process runner and its plain toolchains (infra/sandbox/process/) never import the
 *   warm toolchains (infra/sandbox/warm/), and neither imports the registry above both (toolchainRegistry.ts).
 */
const METHOD_PURE = '^methods/[^/]+/(?!(workflow|activities|trace)\\.ts$)[^/]+$';
const METHOD_WORKFLOW = '^methods/([^/]+/workflow|workflows)\\.ts$';
const METHOD_WORKER = '^methods/([^/]+/(activities|trace)|activities)\\.ts$';
const FAMILY_FIXTURES = '^domain/families/[^/]+/fixtures\\.ts$';

module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: "domain/ imports only domain/, the methods' pure files and npm packages",
      severity: 'error',
      from: { path: '^domain/', pathNot: FAMILY_FIXTURES },
      to: { pathNot: ['^domain/', METHOD_PURE, 'node_modules'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'family-fixtures-use-test-support',
      comment: "a family's test fixtures import domain/, test/support/ and libraries",
      severity: 'error',
      from: { path: FAMILY_FIXTURES },
      to: { pathNot: ['^domain/', '^test/support/', 'node_modules'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'family-fixtures-for-tests-only',
      comment: "only tests import a family's test fixtures: the product's bundles never hold them",
      severity: 'error',
      from: { pathNot: ['^test/', FAMILY_FIXTURES] },
      to: { path: FAMILY_FIXTURES },
    },
    {
      name: 'method-pure-files-are-pure',
      comment: "a method's pure files (all but workflow.ts, activities.ts, trace.ts) import only domain/ and pure files",
      severity: 'error',
      from: { path: METHOD_PURE },
      to: { pathNot: ['^domain/', METHOD_PURE, 'node_modules'] },
    },
    {
      name: 'method-pure-files-no-node-io',
      severity: 'error',
      from: { path: METHOD_PURE },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'workflow-code-is-sandbox-safe',
      comment: "workflow code imports activities, infra, workers and the methods' worker faces for types only",
      severity: 'error',
      from: { path: ['^workflows/', METHOD_WORKFLOW] },
      to: { path: ['^(activities|infra|workers|scripts)/', METHOD_WORKER], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'workflow-code-no-node-builtins',
      severity: 'error',
      from: { path: ['^workflows/', METHOD_WORKFLOW] },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'method-worker-faces-not-workflows',
      comment: 'activities never import workflow code',
      severity: 'error',
      from: { path: METHOD_WORKER },
      to: { path: ['^workflows/', METHOD_WORKFLOW] },
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
      to: { path: ['^activities/', '^methods/'] },
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
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      extensions: ['.ts', '.js'],
    },
  },
};
