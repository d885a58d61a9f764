/**
 * Doc masking, as the paper does for unseen libraries: each API keeps its import path, signature
 * and what it does (the description's first paragraph), and loses its usage examples and the
 * details of its parameters (further paragraphs, and `Parameters` / `Args:` / `:param` sections),
 * so that the APIs stay ambiguous and a model must find out how they behave.
 *
 * What "unseen" means here: a library whose runtime is not Python's own (`builtin`): PBE World's
 * private module, MonkeyEval / BeatNumEval's renamed libraries, and a real library marked `unseen`
 * (TorchDataEval's torchdata, released after the models' training data). A user's library (runtime builtin,
 * importable by the sandbox's Python) is masked only when the config says `doc_masking: on`.
 */
import type { ApiDoc, DatasetLibrary } from './library.js';

export type DocMasking = 'auto' | 'on' | 'off';

/** A parameter section starts at one of these lines and runs to the end of the description. */
const PARAMETER_SECTION =
  /^\s*(parameters|params|arguments|args|keyword arguments|kwargs|returns?|raises|examples?)\s*:?\s*$|^\s*:(param|type|arg|keyword)\b/im;

export function maskDoc(doc: ApiDoc): ApiDoc {
  const text = doc.description.trim();
  const section = PARAMETER_SECTION.exec(text);
  const before = section ? text.slice(0, section.index) : text;
  const first = (before.split(/\n\s*\n/)[0] ?? '').trim();
  const { examples: _examples, ...rest } = doc;
  return { ...rest, description: first || doc.description.trim().split('\n')[0]!.trim() };
}

export function masksDocs(library: DatasetLibrary, mode: DocMasking | undefined): boolean {
  if (mode === 'on') return true;
  if (mode === 'auto') return library.library.runtime.kind !== 'builtin' || library.library.unseen === true;
  return false; // off, or a run started before doc_masking existed
}

/** The library as the methods' prompts show it under `mode`. */
export function visibleLibrary(library: DatasetLibrary, mode: DocMasking | undefined): DatasetLibrary {
  if (!masksDocs(library, mode)) return library;
  return { ...library, library: { ...library.library, docs: library.library.docs.map(maskDoc) } };
}
