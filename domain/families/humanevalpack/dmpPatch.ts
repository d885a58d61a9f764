/**
 * bigcode's `diff` HumanEvalFix format: the model continues `<commit_before>buggy code
 * <commit_msg>instruction<commit_after>` with a patch in diff_match_patch's text form, which
 * bigcode's process_results reads with diff_match_patch.patch_fromText and applies to the buggy
 * code with patch_apply (fuzzy: each patch's context is searched near its expected place). The
 * matching and applying are Google's diff-match-patch (its JavaScript port, the same algorithm and
 * settings as the Python one bigcode loads); the patch text is read here as the Python
 * patch_fromText reads it, since the JavaScript one decodes lines with decodeURI, which throws on
 * a `%` that starts no escape (`x % 2`, which Python's urllib unquote keeps) and keeps escapes of
 * reserved characters (`%23`) that Python decodes.
 */
import DiffMatchPatch from 'diff-match-patch';
import { PY_SPACE_CLASS } from '../../metrics/pythonText.js';

type Patch = InstanceType<typeof DiffMatchPatch.patch_obj>;

const HEADER = /^@@ -(\d+),?(\d*) \+(\d+),?(\d*) @@$/;
const LEADING_SPACE = new RegExp(`^[${PY_SPACE_CLASS}]+`, 'u');
const UTF8 = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * Python's urllib.parse.unquote: in each run of ASCII characters, `%` and two hex digits are a
 * byte and the run's bytes are read as UTF-8 (invalid bytes as U+FFFD); a `%` that starts no
 * escape is kept, and so is everything outside ASCII.
 */
export function pyUnquote(text: string): string {
  if (!text.includes('%')) return text;
  return text.replace(/[\0-\x7f]+/g, (run) => {
    if (!run.includes('%')) return run;
    const bytes: number[] = [];
    for (let i = 0; i < run.length; i++) {
      if (run[i] === '%' && /^[0-9a-fA-F]{2}$/.test(run.slice(i + 1, i + 3))) {
        bytes.push(parseInt(run.slice(i + 1, i + 3), 16));
        i += 2;
      } else bytes.push(run.charCodeAt(i));
    }
    return UTF8.decode(new Uint8Array(bytes));
  });
}

/** The start and length of one side of a header, as patch_fromText sets them (no length: 1; 0: an empty side at the start given). */
function side(start: string, length: string): [number, number] {
  if (length === '') return [Number(start) - 1, 1];
  if (length === '0') return [Number(start), 0];
  return [Number(start) - 1, Number(length)];
}

/** diff_match_patch's patch_fromText as its Python version reads a patch; throws where it raises ValueError. */
export function dmpPatchesFromText(text: string): Patch[] {
  const patches: Patch[] = [];
  if (!text) return patches;
  const lines = text.split('\n');
  let at = 0;
  while (at < lines.length) {
    const header = HEADER.exec(lines[at]!);
    if (!header) throw new Error(`Invalid patch string: ${lines[at]}`);
    const patch = new DiffMatchPatch.patch_obj();
    patches.push(patch);
    [patch.start1, patch.length1] = side(header[1]!, header[2]!);
    [patch.start2, patch.length2] = side(header[3]!, header[4]!);
    at++;
    for (; at < lines.length; at++) {
      const sign = lines[at]!.slice(0, 1);
      const line = pyUnquote(lines[at]!.slice(1));
      if (sign === '+') patch.diffs.push([DiffMatchPatch.DIFF_INSERT, line]);
      else if (sign === '-') patch.diffs.push([DiffMatchPatch.DIFF_DELETE, line]);
      else if (sign === ' ') patch.diffs.push([DiffMatchPatch.DIFF_EQUAL, line]);
      else if (sign === '@') break;
      else if (sign !== '') throw new Error(`Invalid patch mode: '${sign}'\n${line}`);
    }
  }
  return patches;
}

/**
 * bigcode's process_results for `diff`: the patch text, left-stripped, read and applied to the
 * buggy code; what applies is kept (a patch whose context is not found is skipped), no patch
 * leaves the code as it is, and a text that is not a patch (patch_fromText raises) is an empty
 * program.
 */
export function applyDmpPatch(buggy: string, patchText: string): string {
  try {
    const patches = dmpPatchesFromText(patchText.replace(LEADING_SPACE, ''));
    return new DiffMatchPatch().patch_apply(patches as never, buggy)[0];
  } catch {
    return '';
  }
}
