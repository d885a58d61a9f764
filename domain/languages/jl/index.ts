/** Julia, MultiPL-E's `jl`: run by `julia`, the tests a `@testset` of `@test`s. */
import { multiplELanguage } from '../multiple.js';

export const jl = multiplELanguage({
  id: 'jl',
  name: 'Julia',
  extension: 'jl',
  stopWords: ['\nfunction', '\nmacro', '\n\n'],
  fenceTags: ['julia', 'jl'],
  compiled: false,
});
