/** C#, MultiPL-E's `cs`: a `class Problem` compiled with DEBUG defined (its tests are `Debug.Assert`s in `Main`), run on Mono. */
import { multiplELanguage } from '../multiple.js';

export const cs = multiplELanguage({
  id: 'cs',
  name: 'C#',
  extension: 'cs',
  stopWords: ['\n    }\n'],
  fenceTags: ['csharp', 'cs', 'c#'],
  compiled: true,
});
