import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { links } from './markdown-links';

/** The files a Markdown page links to, as paths from `root` (anchors and external links left out). */
function linkedFiles(root: string, page: string): Set<string> {
  const dir = path.dirname(path.join(root, page));
  return new Set(
    links(readFileSync(path.join(root, page), 'utf8'))
      .map(({ target }) => target.split('#')[0])
      .filter((target) => target !== '' && !/^[a-z][a-z0-9+.-]*:/i.test(target))
      .map((target) => path.relative(root, path.resolve(dir, decodeURIComponent(target)))),
  );
}

/**
 * What is wrong with the decision records: a number taken twice (two records landed with the same
 * next free number), a title that does not carry its file's number, a record the index does not list.
 */
export function decisionRecordProblems(root: string): string[] {
  const dir = path.join(root, 'docs', 'adr');
  if (!existsSync(dir)) return [];
  const records = readdirSync(dir)
    .filter((file) => /^\d{4}-.*\.md$/.test(file))
    .sort();
  const problems: string[] = [];
  const byNumber = new Map<string, string[]>();
  for (const file of records) {
    const number = file.slice(0, 4);
    byNumber.set(number, [...(byNumber.get(number) ?? []), file]);
    const title = readFileSync(path.join(dir, file), 'utf8').split('\n')[0];
    if (!title.startsWith(`# ${number}. `)) problems.push(`${file}: its title does not start with "# ${number}. "`);
  }
  for (const [number, files] of byNumber) {
    if (files.length > 1) problems.push(`${number} is taken by ${files.length} records: ${files.join(', ')}`);
  }
  const listed = existsSync(path.join(dir, 'README.md')) ? linkedFiles(root, 'docs/adr/README.md') : new Set();
  for (const file of records) {
    if (!listed.has(path.join('docs', 'adr', file))) problems.push(`${file}: not listed in docs/adr/README.md`);
  }
  return problems;
}

/** The pages of docs/ (beside its index) that its index, docs/README.md, does not link to. */
export function pagesMissingFromIndex(root: string): string[] {
  const docs = path.join(root, 'docs');
  if (!existsSync(docs)) return [];
  const listed = existsSync(path.join(docs, 'README.md')) ? linkedFiles(root, 'docs/README.md') : new Set();
  return readdirSync(docs)
    .filter((file) => file.endsWith('.md') && file !== 'README.md')
    .map((file) => path.join('docs', file))
    .filter((page) => !listed.has(page))
    .sort();
}

/**
 * Where the reading order breaks: the pages of docs/ in the order its index lists them, each of
 * which must end by naming the page after it (`Next: [...](next.md)`) and the one before it
 * (`Previous: [...](previous.md)`), so that a reader can follow the index from page to page.
 */
export function readingOrderProblems(root: string): string[] {
  const index = path.join(root, 'docs', 'README.md');
  if (!existsSync(index)) return [];
  const order = [
    ...new Set(
      links(readFileSync(index, 'utf8'))
        .map(({ target }) => target.split('#')[0])
        .filter((target) => /^[a-z0-9-]+\.md$/.test(target) && target !== 'README.md'),
    ),
  ];
  const problems: string[] = [];
  order.forEach((page, i) => {
    const file = path.join(root, 'docs', page);
    if (!existsSync(file)) return; // a broken link, reported by the link check
    const text = readFileSync(file, 'utf8');
    const next = order[i + 1];
    const previous = order[i - 1];
    if (next && !new RegExp(`Next: \\[[^\\]]+\\]\\(${escape(next)}\\)`).test(text)) {
      problems.push(`docs/${page}: does not end with "Next: [...](${next})"`);
    }
    if (previous && !new RegExp(`Previous: \\[[^\\]]+\\]\\(${escape(previous)}\\)`).test(text)) {
      problems.push(`docs/${page}: does not end with "Previous: [...](${previous})"`);
    }
  });
  return problems;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
