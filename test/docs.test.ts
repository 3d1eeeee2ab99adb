import { existsSync, readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../runtime/worker-build.ts';
import { commentsIn } from './support/module-imports.ts';

/**
 * The project carries its own specification in docs/ (docs/README.md), and comments point there. Someone who clones
 * the repository has nothing else: so no source file names the documents the project was built from, no comment
 * cites a tracker issue by number, and every docs page and `#anchor` a comment or README links to exists.
 */

const SOURCE_DIRS = ['adapters', 'core', 'handlers', 'runtime', 'bin', 'bench', 'test'];
const SOURCE_FILE = /\.(ts|mjs|js)$/;

/**
 * Names of the original product documents, their rule files and the team's design notes, none of which is part of
 * the repository (the repository's own account is docs/).
 */
const OUTSIDE_DOCUMENT = [
  /\bseeds\//i,
  /\bseeds?[ -]00\d/i,
  /\b00\d-(?:git|chat|search|project)\.md\b/i,
  /\bDESIGN\.md\b/,
  /\bTOOLCHAIN\.md\b/,
];
/** A tracker issue cited by number: the word, then its number, maybe after a `#`. */
const ISSUE_NUMBER = /\bissue\s+#?\d+/i;
/** A docs page named from a source comment or README: `docs/ori.md`, `docs/ori.md#skills`. */
const DOCS_LINK = /(?<![\w./-])docs\/([\w.-]+\.md)(?:#([\w-]+))?/g;

async function sourceFiles(): Promise<string[]> {
  const files: string[] = [];
  for (const dir of SOURCE_DIRS) {
    const entries = await readdir(join(projectRoot, dir), { withFileTypes: true, recursive: true });
    for (const entry of entries) {
      const path = join(entry.parentPath, entry.name);
      if (entry.isFile() && SOURCE_FILE.test(entry.name) && !path.includes('/node_modules/')) files.push(path);
    }
  }
  return files.sort();
}

/** GitHub's heading anchors: lower case, punctuation dropped but `-` and `_`, spaces as `-`; repeats get `-1`, `-2`. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? undefined : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = heading.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    let anchor = slug;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${slug}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

/** Why `page#anchor` (a page under docs/) does not resolve, or undefined when it does. */
function brokenLink(page: string, anchor: string | undefined): string | undefined {
  const file = join(projectRoot, 'docs', page);
  if (!existsSync(file)) return `docs/${page} does not exist`;
  if (anchor !== undefined && !headingAnchors(readFileSync(file, 'utf8')).has(anchor)) {
    return `docs/${page} has no heading #${anchor}`;
  }
  return undefined;
}

describe('docs/ is the specification the code points to', () => {
  it('no source file names the original product documents or their rule files', async () => {
    const found: string[] = [];
    for (const file of await sourceFiles()) {
      const lines = readFileSync(file, 'utf8').split('\n');
      lines.forEach((line, index) => {
        if (OUTSIDE_DOCUMENT.some((pattern) => pattern.test(line))) found.push(`${relative(projectRoot, file)}:${index + 1}: ${line.trim()}`);
      });
    }
    expect(found).toEqual([]);
  });

  it('no comment cites an issue by number', async () => {
    const found: string[] = [];
    for (const file of await sourceFiles()) {
      for (const comment of commentsIn(readFileSync(file, 'utf8'))) {
        const match = ISSUE_NUMBER.exec(comment);
        if (match) found.push(`${relative(projectRoot, file)}: …${comment.slice(Math.max(0, match.index - 40), match.index + 40)}…`);
      }
    }
    expect(found).toEqual([]);
  });

  it('every docs page and anchor a source comment names exists', async () => {
    const broken: string[] = [];
    let links = 0;
    for (const file of await sourceFiles()) {
      for (const comment of commentsIn(readFileSync(file, 'utf8'))) {
        for (const [, page, anchor] of comment.matchAll(DOCS_LINK)) {
          links++;
          const why = brokenLink(page!, anchor);
          if (why) broken.push(`${relative(projectRoot, file)}: ${why}`);
        }
      }
    }
    expect(broken).toEqual([]);
    expect(links).toBeGreaterThan(100); // the comments do point here
  });

  it("every docs page and anchor README.md links to exists, and so does every link between the pages", async () => {
    const broken: string[] = [];
    for (const [, page, anchor] of readFileSync(join(projectRoot, 'README.md'), 'utf8').matchAll(DOCS_LINK)) {
      const why = brokenLink(page!, anchor);
      if (why) broken.push(`README.md: ${why}`);
    }
    const pages = (await readdir(join(projectRoot, 'docs'))).filter((name) => name.endsWith('.md'));
    expect(pages).toContain('README.md');
    for (const page of pages) {
      const text = readFileSync(join(projectRoot, 'docs', page), 'utf8');
      for (const [, target, anchor] of text.matchAll(/\]\(([\w.-]*\.md)?(?:#([\w-]+))?\)/g)) {
        const why = brokenLink(target ?? page, anchor);
        if (why) broken.push(`docs/${page}: ${why}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('reads anchors as GitHub writes them', () => {
    expect([...headingAnchors('# A page\n## `GET /api/files` — list\n## run_command\n```\n# not a heading\n```\n## Errors\n## Errors\n')])
      .toEqual(['a-page', 'get-apifiles--list', 'run_command', 'errors', 'errors-1']);
  });
});
