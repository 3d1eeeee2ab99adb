/** The fixture of both scanner tests (./scanner.test.ts and test/adapters/search/scan-pool.test.ts). */
import { MAX_SEARCHED_FILE_BYTES } from '../../../../core/search/answer.ts';
import type { ScanTarget } from '../../../../core/search/text/scanner.ts';
import type { BuiltTree, Seed } from '../../../support/backends.ts';

const TEXT = [{ kind: 'text' }];

export const SCAN_SEED: Seed = {
  'src/a.ts': 'export const widget = 1;\nconst other = widget + 1;\n',
  'src/b.ts': 'nothing here\n',
  'docs/guide.md': '# Widget guide\r\nUse the WIDGET.\r\n',
  'bin/blob.bin': new Uint8Array([0x77, 0x69, 0x64, 0x67, 0x65, 0x74, 0x00, 0x01]), // "widget\0\x01": binary
  'big.txt': `widget\n${'x'.repeat(MAX_SEARCHED_FILE_BYTES)}`, // over 1 MiB
  'z/last.txt': 'a widget at the end',
};

/** The scan targets of `paths` in `tree`, their sizes as listed (overridable: a listing can be stale). */
export async function targets(tree: BuiltTree, paths: string[], sizes: Record<string, number> = {}): Promise<ScanTarget[]> {
  return Promise.all(
    paths.map(async (path) => {
      const absolutePath = `${tree.root}/${path}`;
      const size = sizes[path] ?? (await tree.fs.stat(absolutePath).then((stat) => stat.size, () => 0));
      return { path, absolutePath, size };
    }),
  );
}

export const SCAN_PATHS = ['z/last.txt', 'src/a.ts', 'src/b.ts', 'docs/guide.md', 'bin/blob.bin', 'big.txt'];

/** What a scan of SCAN_PATHS for `widget` answers. */
export const EXPECTED_WIDGET = [
  ['z/last.txt', { hits: [{ line: 1, text: 'a widget at the end', spans: [{ start: 2, end: 8 }], tags: TEXT }], capped: false }],
  [
    'src/a.ts',
    {
      hits: [
        { line: 1, text: 'export const widget = 1;', spans: [{ start: 13, end: 19 }], tags: TEXT },
        { line: 2, text: 'const other = widget + 1;', spans: [{ start: 14, end: 20 }], tags: TEXT },
      ],
      capped: false,
    },
  ],
  [
    'docs/guide.md',
    {
      hits: [
        { line: 1, text: '# Widget guide', spans: [{ start: 2, end: 8 }], tags: TEXT },
        { line: 2, text: 'Use the WIDGET.', spans: [{ start: 8, end: 14 }], tags: TEXT },
      ],
      capped: false,
    },
  ],
];
