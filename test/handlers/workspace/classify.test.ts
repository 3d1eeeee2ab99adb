/**
 * `GET /workspace/classify` through Intentic's client over a real folder: a mixed drop (PNG, PDF, zip, RAR, gzip,
 * markdown, a binary blob, text without an extension), project folders as single entries (a package.json folder,
 * a git repo without a marker, a bare repository), and what is never listed: ignored files, `.intentic/`,
 * installed packages, links.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkspaceApp } from '../../../runtime/app.ts';
import { intenticClient } from '../../support/intentic-contract.ts';
import { nodeApp, tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';
import { PDF, PNG, RAR4, storedZip } from '../../core/classify/samples.ts';

let ws: TempWorkspace;
let app: WorkspaceApp;

beforeAll(async () => {
  ws = await tempWorkspace({
    '.gitignore': '*.log\n',
    'debug.log': 'ignored\n',
    'drop/photo.png': PNG,
    'drop/paper.pdf': PDF,
    'drop/bundle.zip': storedZip({ 'a.txt': 'a' }),
    'drop/old.rar': RAR4,
    'drop/data.gz': gzipSync('hello'),
    'drop/README.md': '# readme\n',
    'drop/blob.bin': new Uint8Array([7, 0, 1, 2, 255]),
    'drop/LICENSE': 'MIT\n',
    'drop/nested/deeper/photo.jpg': 'not really a jpeg',
    'web/package.json': '{"name":"web"}\n',
    'web/go.mod': 'module web\n',
    'web/src/index.ts': 'export {};\n',
    'svc/Cargo.toml': '[package]\n',
    'dotnet/App.csproj': '<Project/>\n',
    'plain/.git/HEAD': 'ref: refs/heads/main\n',
    'plain/notes.txt': 'n\n',
    '.intentic/config/templates.json': '{}\n',
    '.github/workflows/ci.yml': 'on: push\n',
    'node_modules/x/index.js': 'x\n',
    'z.txt': 'z\n',
  });
  execFileSync('git', ['init', '-q', '--bare', join(ws.root, 'remote.git')]);
  await mkdir(join(ws.root, 'links'));
  await symlink(join(ws.root, 'z.txt'), join(ws.root, 'links/z-link.txt'));
  await symlink(join(ws.root, 'drop'), join(ws.root, 'drop-link'));
  app = nodeApp(ws.root);
});
afterAll(async () => {
  await app?.close();
  await ws?.cleanup();
});

describe('GET /workspace/classify', () => {
  it('depth-first, folders before files, by name; project folders one entry each; the rules in order', async () => {
    expect(await intenticClient(app).workspace.classify({})).toEqual({
      classifications: [
        { path: '.github/workflows/ci.yml', bucket: 'documents', reason: 'text-content' },
        { path: 'dotnet', bucket: 'repositories', reason: 'repository:App.csproj' },
        { path: 'drop/nested/deeper/photo.jpg', bucket: 'media', reason: 'ext:.jpg' },
        { path: 'drop/LICENSE', bucket: 'documents', reason: 'text-content' },
        { path: 'drop/README.md', bucket: 'documents', reason: 'ext:.md' },
        { path: 'drop/blob.bin', bucket: 'other', reason: 'unknown' },
        { path: 'drop/bundle.zip', bucket: 'archives', reason: 'magic:application/zip' },
        { path: 'drop/data.gz', bucket: 'archives', reason: 'magic:application/gzip' },
        { path: 'drop/old.rar', bucket: 'archives', reason: 'magic:application/x-rar-compressed' },
        { path: 'drop/paper.pdf', bucket: 'documents', reason: 'magic:application/pdf' },
        { path: 'drop/photo.png', bucket: 'media', reason: 'magic:image/png' },
        { path: 'plain', bucket: 'repositories', reason: 'repository:.git' },
        { path: 'remote.git', bucket: 'repositories', reason: 'repository:.git' },
        { path: 'svc', bucket: 'repositories', reason: 'repository:Cargo.toml' },
        // The first marker by name: go.mod before package.json.
        { path: 'web', bucket: 'repositories', reason: 'repository:go.mod' },
        { path: '.gitignore', bucket: 'documents', reason: 'text-content' },
        { path: 'z.txt', bucket: 'documents', reason: 'ext:.txt' },
      ],
    });
  });
});
