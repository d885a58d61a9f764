/** The warm strategy of each MultiPL-E language id, by the id MultiPL-E writes. */
import { CppStrategy, NodeStrategy, RustStrategy } from './compiled.js';
import { GoStrategy } from './go.js';
import { JavaStrategy, TypeScriptStrategy } from './servers.js';
import type { WarmStrategy } from './strategy.js';

export const WARM_LANGUAGES = ['js', 'ts', 'go_test.go', 'rs', 'java', 'cpp'] as const;
export type WarmLanguage = (typeof WARM_LANGUAGES)[number];

export function warmStrategy(language: WarmLanguage, concurrency: number): WarmStrategy {
  switch (language) {
    case 'js':
      return new NodeStrategy();
    case 'ts':
      return new TypeScriptStrategy(concurrency);
    case 'go_test.go':
      return new GoStrategy();
    case 'rs':
      return new RustStrategy();
    case 'java':
      return new JavaStrategy({ workers: concurrency });
    case 'cpp':
      return new CppStrategy();
  }
}
