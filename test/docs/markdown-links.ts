import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** A relative link that does not lead where it says: its file, where it is, and why. */
export interface BrokenLink {
  file: string;
  line: number;
  target: string;
  problem: string;
}

/**
 * README.md, every Markdown file under docs/, and the course's pages (test/exercises/**.md: its
 * README, each exercise's story and hints): the pages people read, which must link truly.
 */
export function documentationFiles(root: string): string[] {
  const under = (dir: string) =>
    existsSync(path.join(root, dir))
      ? readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
          .filter((file) => file.endsWith('.md'))
          .map((file) => path.join(dir, file))
          .sort()
      : [];
  return ['README.md', ...under('docs'), ...under(path.join('test', 'exercises'))].filter((file) =>
    existsSync(path.join(root, file)),
  );
}

/**
 * Every relative link and image of `files` (paths from `root`) whose file is missing, or whose
 * anchor names no heading of its Markdown page (GitHub's slugs) nor a line of another file. Links
 * with a scheme (https:, mailto:) are not followed: this checks the repository, not the web.
 */
export function brokenLinks(root: string, files: string[]): BrokenLink[] {
  const anchorsOf = memo((file: string) => anchors(readFileSync(file, 'utf8')));
  const broken: BrokenLink[] = [];
  for (const file of files) {
    const from = path.join(root, file);
    for (const { target, line } of links(readFileSync(from, 'utf8'))) {
      const problem = checkTarget(root, from, target, anchorsOf);
      if (problem) broken.push({ file, line, target, problem });
    }
  }
  return broken;
}

function checkTarget(
  root: string,
  from: string,
  target: string,
  anchorsOf: (file: string) => Set<string>,
): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return undefined;
  const hash = target.indexOf('#');
  const pathPart = safeDecode(hash < 0 ? target : target.slice(0, hash));
  const anchor = hash < 0 ? undefined : safeDecode(target.slice(hash + 1));
  const resolved = pathPart.startsWith('/')
    ? path.join(root, pathPart)
    : pathPart === ''
      ? from
      : path.resolve(path.dirname(from), pathPart);
  if (path.relative(root, resolved).startsWith('..')) return 'leads outside the repository';
  if (!existsSync(resolved)) return 'no such file';
  if (anchor === undefined || anchor === '') return undefined;
  if (statSync(resolved).isDirectory()) return 'an anchor on a folder';
  if (resolved.endsWith('.md')) {
    return anchorsOf(resolved).has(anchor) ? undefined : `no heading #${anchor}`;
  }
  // Another file: GitHub's line anchors (#L12, #L12-L20), within its length.
  const lines = /^L(\d+)(?:-L(\d+))?$/.exec(anchor);
  if (!lines) return `no anchor #${anchor} in a file that is not Markdown`;
  const count = readFileSync(resolved, 'utf8').split('\n').length;
  return Math.max(Number(lines[1]), Number(lines[2] ?? 0)) <= count ? undefined : `no line ${anchor} (${count} lines)`;
}

/** The targets of a page's links, images and link definitions, outside code, with their lines. */
export function links(markdown: string): Array<{ target: string; line: number }> {
  const found: Array<{ target: string; line: number }> = [];
  proseLines(markdown).forEach((text, index) => {
    if (text === undefined) return;
    const prose = withoutCodeSpans(text);
    for (const match of prose.matchAll(INLINE_LINK)) found.push({ target: unbracket(match[1]), line: index + 1 });
    const definition = LINK_DEFINITION.exec(prose);
    if (definition) found.push({ target: unbracket(definition[1]), line: index + 1 });
    for (const match of prose.matchAll(HTML_LINK)) found.push({ target: match[2], line: index + 1 });
  });
  return found;
}

/** `[text](target "title")` and `![alt](target)`: text may hold one level of brackets, the target one of parentheses. */
const INLINE_LINK =
  /!?\[(?:[^[\]]|\[[^[\]]*\])*\]\(\s*(<[^>]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g;
/** `[label]: target`, at the start of a line. */
const LINK_DEFINITION = /^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/;
const HTML_LINK = /<(?:a|img)\s[^>]*?\b(href|src)="([^"]*)"/gi;

const unbracket = (target: string) => target.replace(/^<(.*)>$/, '$1');

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The page's lines, with those inside fenced code blocks (and the fences) left out as `undefined`. */
function proseLines(markdown: string): Array<string | undefined> {
  let fence: string | undefined;
  return markdown.split('\n').map((line) => {
    const opening = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence === undefined) {
      if (opening) {
        fence = opening[1];
        return undefined;
      }
      return line;
    }
    if (opening && opening[1][0] === fence[0] && opening[1].length >= fence.length && line.trim() === opening[1]) {
      fence = undefined;
    }
    return undefined;
  });
}

/** The line with each code span's content blanked: a `[x](y)` inside backticks is not a link. */
function withoutCodeSpans(line: string): string {
  return line.replace(/(`+)([\s\S]*?[^`])\1(?!`)/g, (span) => ' '.repeat(span.length));
}

/** The anchors a page offers: GitHub's slug of each heading, and every `<a name>` or `id`. */
export function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  const occurrences = new Map<string, number>();
  const lines = proseLines(markdown);
  lines.forEach((line, index) => {
    if (line === undefined) return;
    for (const match of line.matchAll(/<[a-z]+\s[^>]*?\b(?:name|id)="([^"]+)"/gi)) found.add(match[1]);
    const atx = /^ {0,3}#{1,6}(?:\s+(.*?))?(?:\s+#+)?\s*$/.exec(line);
    const next = lines[index + 1];
    const setext =
      !atx && line.trim() !== '' && next !== undefined && /^ {0,3}(=+|-+)\s*$/.test(next) && !/^\s*[-*+]\s/.test(line)
        ? line.trim()
        : undefined;
    const heading = atx ? (atx[1] ?? '') : setext;
    if (heading === undefined) return;
    // GitHub numbers repeated headings as github-slugger does: the second `#same` is `#same-1`.
    const base = slug(heading);
    let candidate = base;
    while (occurrences.has(candidate)) {
      const n = occurrences.get(base)! + 1;
      occurrences.set(base, n);
      candidate = `${base}-${n}`;
    }
    occurrences.set(candidate, 0);
    found.add(candidate);
  });
  return found;
}

/**
 * GitHub's anchor for a heading (github-slugger): the heading's text as rendered (code spans keep
 * their content, links their text, emphasis markers go), lower-cased, without any character but
 * letters, marks, digits, `_`, spaces and hyphens, and each space a hyphen.
 */
export function slug(heading: string): string {
  const rendered = heading
    .split(/(`+[^`]*`+)/)
    .map((part, index) =>
      index % 2 === 1
        ? part.replace(/^`+|`+$/g, '')
        : part
            .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
            .replace(/<[^>]+>/g, '')
            .replace(/(\*+|(?<![\p{L}\p{N}])_+|_+(?![\p{L}\p{N}]))/gu, ''),
    )
    .join('');
  return rendered
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

function memo<T>(compute: (key: string) => T): (key: string) => T {
  const cache = new Map<string, T>();
  return (key) => {
    if (!cache.has(key)) cache.set(key, compute(key));
    return cache.get(key)!;
  };
}
