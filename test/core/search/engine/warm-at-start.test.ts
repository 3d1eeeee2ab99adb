/**
 * The first query after start is answered by a scan and has its top files parsed for `context`: the engine gets
 * both the scanner and the parser ready when it starts, once, rather than when that query comes.
 */
import { afterEach, expect, it } from 'vitest';
import { MemoryFileSystem } from '../../../../adapters/fs/memory-file-system.ts';
import { createWorkspaceApp, type WorkspaceApp } from '../../../../runtime/app.ts';
import { createFsScanner } from '../../../../core/search/text/scanner.ts';

let app: WorkspaceApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

it('warms the scanner and the parsers when it starts, once', async () => {
  const fs = new MemoryFileSystem({ '/ws/a.c': 'int main(void) { return 0; }\n' });
  const warmed: string[] = [];
  const scanner = { ...createFsScanner(fs), warm: () => warmed.push('scanner') };
  app = createWorkspaceApp({ fs, root: '/ws', auth: { disabled: true }, search: { scanner, warmParsers: () => warmed.push('parsers') } });
  expect(warmed).toEqual([]);
  app.search.start();
  expect(warmed).toEqual(['scanner', 'parsers']);
  app.search.start();
  await app.search.settled();
  expect(warmed).toEqual(['scanner', 'parsers']);
});
