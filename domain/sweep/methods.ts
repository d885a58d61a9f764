/**
 * The registry of code-generation methods a sweep can run. Adding a method is one entry in
 * `METHODS`: its name becomes valid in sweep configs and its cost estimates feed the dry-run plan.
 */

export interface MethodSpec {
  /** One line for `--dry-run` and `--help`. */
  description: string;
  /** LLM requests one sample costs (for `direct`: exactly one). */
  llmRequestsPerSample: number;
  /** Programs run in the sandbox per sample: the final check, plus any the method runs itself. */
  sandboxRunsPerSample: number;
  /** True when the two figures above are estimates (e.g. a method that stops early on success). */
  estimate: boolean;
}

export const METHODS = {
  direct: {
    description: 'one request per sample; the extracted code is run against the hidden tests',
    llmRequestsPerSample: 1,
    sandboxRunsPerSample: 1,
    estimate: false,
  },
} as const satisfies Record<string, MethodSpec>;

export type MethodName = keyof typeof METHODS;

export const METHOD_NAMES = Object.keys(METHODS) as [MethodName, ...MethodName[]];

export function methodSpec(name: MethodName): MethodSpec {
  return METHODS[name];
}
