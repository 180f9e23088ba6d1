import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decisionRecordProblems, pagesMissingFromIndex, readingOrderProblems } from './documentation-index';
import { anchors, brokenLinks, documentationFiles, slug } from './markdown-links';

const root = path.resolve(__dirname, '../..');

describe('The links of the documentation', () => {
  it('when README.md and every page of docs/ are read, then each relative link leads to a file, and each anchor to a heading', () => {
    const files = documentationFiles(root);
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/README.md', 'docs/adr/README.md']));
    expect(brokenLinks(root, files)).toEqual([]);
  });

  it('when the pages of docs/ are listed, then its index links to every one of them', () => {
    expect(pagesMissingFromIndex(root)).toEqual([]);
  });

  it("when the pages are read in the index's order, then each names the one before it and the one after it", () => {
    expect(readingOrderProblems(root)).toEqual([]);
  });

  it('when the decision records are listed, then each number is taken once, and the index lists each record', () => {
    expect(decisionRecordProblems(root)).toEqual([]);
  });
});

describe('The link checker', () => {
  const trees: string[] = [];
  afterAll(() => trees.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  /** A throwaway repository with these files, for planting what the checker must catch. */
  function tree(files: Record<string, string>): string {
    const dir = mkdtempSync(path.join(tmpdir(), 'doc-links-'));
    trees.push(dir);
    for (const [file, content] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), content);
    }
    return dir;
  }
  const check = (dir: string) => brokenLinks(dir, documentationFiles(dir));

  it('when a link names a file that is not there, then it is reported with its line', () => {
    const dir = tree({
      'README.md': '# Title\n\nSee [the guide](docs/guide.md) and [nothing](docs/missing.md).\n',
      'docs/guide.md': '# Guide\n\nBack to the [README](../README.md); [a sibling](sibling.md).\n',
    });
    expect(check(dir)).toEqual([
      { file: 'README.md', line: 3, target: 'docs/missing.md', problem: 'no such file' },
      { file: 'docs/guide.md', line: 3, target: 'sibling.md', problem: 'no such file' },
    ]);
  });

  it('when an anchor names no heading of its page, then it is reported; a heading that is there passes', () => {
    const dir = tree({
      'README.md':
        '# Title\n\n## Quick start\n\n[ok](#quick-start), [ok](docs/a.md#the-relay-npm-run-bench----relay)\n',
      'docs/a.md': '# A\n\n## The relay: `npm run bench -- relay`\n\n[gone](../README.md#quick-stop)\n',
    });
    expect(check(dir)).toEqual([
      { file: 'docs/a.md', line: 5, target: '../README.md#quick-stop', problem: 'no heading #quick-stop' },
    ]);
  });

  it('when links sit in code, or have a scheme, then they are not followed', () => {
    const dir = tree({
      'README.md': [
        '# Title',
        '',
        'Inline `[not a link](nowhere.md)`; [web](https://example.com/x.md); <mailto:a@b.c>',
        '',
        '```md',
        '[not a link either](nowhere.md)',
        '```',
        '',
      ].join('\n'),
    });
    expect(check(dir)).toEqual([]);
  });

  it('when a page links by reference, by HTML, to a folder, or to a line of code, then each is checked', () => {
    const dir = tree({
      'README.md': [
        '# Title',
        '',
        '[a][ref] <img src="docs/missing.png"> [folder](src/) [line](src/a.ts#L2) [far](src/a.ts#L9)',
        '',
        '[ref]: docs/missing.md',
        '',
      ].join('\n'),
      'src/a.ts': 'one\ntwo\n',
    });
    expect(check(dir).map(({ target, problem }) => `${target}: ${problem}`)).toEqual([
      'src/a.ts#L9: no line L9 (3 lines)',
      'docs/missing.png: no such file',
      'docs/missing.md: no such file',
    ]);
  });

  it('when a link leaves the repository, then it is reported even if the file exists', () => {
    const dir = tree({ 'README.md': '# Title\n\n[out](../outside.md)\n' });
    writeFileSync(path.join(dir, '..', 'outside.md'), '# Outside\n');
    try {
      expect(check(dir)).toEqual([
        { file: 'README.md', line: 3, target: '../outside.md', problem: 'leads outside the repository' },
      ]);
    } finally {
      rmSync(path.join(dir, '..', 'outside.md'));
    }
  });

  it('when two records take one number, or a record is missing from the index, then each is reported', () => {
    const dir = tree({
      'docs/adr/README.md': '# Decisions\n\n[0001](0001-one.md), [0002](0002-two.md)\n',
      'docs/adr/0001-one.md': '# 0001. One\n',
      'docs/adr/0002-two.md': '# 0002. Two\n',
      'docs/adr/0002-another.md': '# 0002. Another\n',
      'docs/adr/0003-three.md': '# 3. Three\n',
    });
    expect(decisionRecordProblems(dir)).toEqual([
      '0003-three.md: its title does not start with "# 0003. "',
      '0002 is taken by 2 records: 0002-another.md, 0002-two.md',
      '0002-another.md: not listed in docs/adr/README.md',
      '0003-three.md: not listed in docs/adr/README.md',
    ]);
  });

  it('when a page of docs/ is not in its index, then it is reported', () => {
    const dir = tree({
      'docs/README.md': '# Docs\n\n[A](a.md) and [the decisions](adr/README.md)\n',
      'docs/a.md': '# A\n',
      'docs/b.md': '# B\n',
      'docs/adr/README.md': '# Decisions\n',
    });
    expect(pagesMissingFromIndex(dir)).toEqual(['docs/b.md']);
  });

  it("when a page does not name its neighbours in the index's order, then it is reported", () => {
    const dir = tree({
      'docs/README.md': '# Docs\n\n[A](a.md), [B](b.md), [C](c.md), [decisions](adr/README.md)\n',
      'docs/a.md': '# A\n\n---\n\nNext: [B](b.md)\n',
      'docs/b.md': '# B\n\n---\n\nPrevious: [A](a.md) · Next: [A](a.md)\n',
      'docs/c.md': '# C\n\n---\n\nPrevious: [B, the second\npage](b.md)\n',
    });
    expect(readingOrderProblems(dir)).toEqual(['docs/b.md: does not end with "Next: [...](c.md)"']);
  });

  it("when headings repeat or carry markup, then their anchors are GitHub's", () => {
    expect(slug("Operators' calls")).toBe('operators-calls');
    expect(slug("Where a checkout's SQL time goes: `bench/sql-costs.ts`")).toBe(
      'where-a-checkouts-sql-time-goes-benchsql-coststs',
    );
    expect(slug('Chaos: `npm run chaos`')).toBe('chaos-npm-run-chaos');
    expect(slug('1. The front door')).toBe('1-the-front-door');
    expect(slug('**Bold** and _emphasis_ with `snake_case`')).toBe('bold-and-emphasis-with-snake_case');
    expect(slug('[A link](x.md) in a heading')).toBe('a-link-in-a-heading');
    expect([...anchors('# Same\n\n## Same\n\nText\n---\n\n```\n# not a heading\n```\n<a id="here"></a>\n')]).toEqual([
      'same',
      'same-1',
      'text',
      'here',
    ]);
  });
});
