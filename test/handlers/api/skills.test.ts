import { mkdir, symlink } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { skillMetadata } from '../../../core/skills/discover-skills.ts';
import { createWorkspaceApp } from '../../../runtime/app.ts';
import { nodeApp, request, tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function folder(files: Record<string, string> = {}): Promise<string> {
  const ws: TempWorkspace = await tempWorkspace(files);
  cleanups.push(ws.cleanup);
  return ws.root;
}

async function skills(app: { fetch(r: Request): Promise<Response> }) {
  const res = await app.fetch(request('/api/skills'));
  return { status: res.status, type: res.headers.get('content-type'), body: await res.json() };
}

const skillFile = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n`;

describe('GET /api/skills', () => {
  it('lists project and user skills sorted by name, with absolute SKILL.md paths', async () => {
    const root = await folder({
      '.claude/skills/quality/SKILL.md': skillFile('quality', 'Audit code quality with qlty.'),
      '.claude/skills/deploy/SKILL.md': '---\nname: "deploy-prod"\ndescription: >\n  Ship it\n  carefully.\n---\n',
    });
    const home = await folder({
      '.claude/skills/notes/SKILL.md': "---\ndescription: 'Take notes'\n---\n",
      '.claude/skills/alpha/SKILL.md': 'No frontmatter here.\n',
    });
    expect(await skills(nodeApp(root, { home }))).toEqual({
      status: 200,
      type: 'application/json; charset=utf-8',
      body: {
        skills: [
          { name: 'alpha', description: '', path: `${home}/.claude/skills/alpha/SKILL.md`, source: 'user' },
          {
            name: 'deploy-prod',
            description: 'Ship it carefully.\n',
            path: `${root}/.claude/skills/deploy/SKILL.md`,
            source: 'project',
          },
          { name: 'notes', description: 'Take notes', path: `${home}/.claude/skills/notes/SKILL.md`, source: 'user' },
          {
            name: 'quality',
            description: 'Audit code quality with qlty.',
            path: `${root}/.claude/skills/quality/SKILL.md`,
            source: 'project',
          },
        ],
      },
    });
  });

  it('lets a project skill shadow a user skill of the same (frontmatter) name', async () => {
    const root = await folder({
      '.claude/skills/review/SKILL.md': skillFile('review', 'project review'),
      '.claude/skills/other-folder/SKILL.md': skillFile('lint', 'project lint'),
    });
    const home = await folder({
      '.claude/skills/review/SKILL.md': skillFile('review', 'user review'),
      '.claude/skills/lint/SKILL.md': '---\ndescription: user lint\n---\n',
      '.claude/skills/solo/SKILL.md': skillFile('solo', 'user only'),
    });
    expect((await skills(nodeApp(root, { home }))).body).toEqual({
      skills: [
        { name: 'lint', description: 'project lint', path: `${root}/.claude/skills/other-folder/SKILL.md`, source: 'project' },
        { name: 'review', description: 'project review', path: `${root}/.claude/skills/review/SKILL.md`, source: 'project' },
        { name: 'solo', description: 'user only', path: `${home}/.claude/skills/solo/SKILL.md`, source: 'user' },
      ],
    });
  });

  it('answers { skills: [] } when neither folder exists, or without a home', async () => {
    const root = await folder({ 'README.md': '' });
    const home = await folder();
    expect(await skills(nodeApp(root, { home }))).toEqual({
      status: 200,
      type: 'application/json; charset=utf-8',
      body: { skills: [] },
    });
    expect((await skills(nodeApp(root))).body).toEqual({ skills: [] });
    expect((await skills(nodeApp(root, { home: `${home}/does-not-exist` }))).body).toEqual({ skills: [] });
  });

  it('uses only the project folder when there is no home', async () => {
    const root = await folder({ '.claude/skills/a/SKILL.md': skillFile('a', 'A') });
    expect((await skills(nodeApp(root))).body).toEqual({
      skills: [{ name: 'a', description: 'A', path: `${root}/.claude/skills/a/SKILL.md`, source: 'project' }],
    });
  });

  it('skips folders without SKILL.md, stray files, a SKILL.md folder, and a skills path that is a file', async () => {
    const root = await folder({
      '.claude/skills/empty/README.md': '',
      '.claude/skills/SKILL.md': skillFile('top-level', 'not in a folder'),
      '.claude/skills/odd/SKILL.md/inner.md': '',
      '.claude/skills/lower/skill.md': skillFile('lower', 'wrong case'),
      '.claude/skills/ok/SKILL.md': skillFile('ok', 'fine'),
    });
    const home = await folder({ '.claude/skills': 'a file, not a folder' });
    expect((await skills(nodeApp(root, { home }))).body).toEqual({
      skills: [{ name: 'ok', description: 'fine', path: `${root}/.claude/skills/ok/SKILL.md`, source: 'project' }],
    });
  });

  it('follows symlinked skill folders, reporting the path under the skills folder', async () => {
    const root = await folder({ 'shared/linked/SKILL.md': skillFile('linked', 'via a link') });
    await mkdir(`${root}/.claude/skills`, { recursive: true });
    await symlink(`${root}/shared/linked`, `${root}/.claude/skills/linked`);
    await symlink(`${root}/nowhere`, `${root}/.claude/skills/dangling`);
    expect((await skills(nodeApp(root))).body).toEqual({
      skills: [{ name: 'linked', description: 'via a link', path: `${root}/.claude/skills/linked/SKILL.md`, source: 'project' }],
    });
  });

  it('reads CRLF files, falls back to the folder name, ignores an unterminated block', async () => {
    const root = await folder({
      '.claude/skills/crlf/SKILL.md': '---\r\nname: windows\r\ndescription: |\r\n  two\r\n  lines\r\n---\r\nbody\r\n',
      '.claude/skills/no-name/SKILL.md': '---\ndescription: "has no name"\nextra: ignored\n---\n',
      '.claude/skills/open/SKILL.md': '---\nname: never-closed\ndescription: nope\n',
      '.claude/skills/blank-name/SKILL.md': '---\nname: ""\n---\n',
    });
    const path = (dir: string) => `${root}/.claude/skills/${dir}/SKILL.md`;
    expect((await skills(nodeApp(root))).body).toEqual({
      skills: [
        { name: 'blank-name', description: '', path: path('blank-name'), source: 'project' },
        { name: 'no-name', description: 'has no name', path: path('no-name'), source: 'project' },
        { name: 'open', description: '', path: path('open'), source: 'project' },
        { name: 'windows', description: 'two\nlines\n', path: path('crlf'), source: 'project' },
      ],
    });
  });

  it('skips an unreadable SKILL.md and an unreadable skills folder', async () => {
    const fs = new MemoryFileSystem({
      '/ws/.claude/skills/locked/SKILL.md': skillFile('locked', 'secret'),
      '/ws/.claude/skills/open/SKILL.md': skillFile('open', 'visible'),
      '/home/u/.claude/skills/user-skill/SKILL.md': skillFile('user-skill', 'hidden'),
    });
    await fs.chmod('/ws/.claude/skills/locked/SKILL.md', 0);
    await fs.chmod('/home/u/.claude/skills', 0);
    const app = createWorkspaceApp({ fs, root: '/ws', home: '/home/u', auth: { disabled: true } });
    expect(await skills(app)).toEqual({
      status: 200,
      type: 'application/json; charset=utf-8',
      body: { skills: [{ name: 'open', description: 'visible', path: '/ws/.claude/skills/open/SKILL.md', source: 'project' }] },
    });
  });

  it('sorts names in code-unit order, ties by path', async () => {
    const root = await folder({
      '.claude/skills/b/SKILL.md': skillFile('same', 'from b'),
      '.claude/skills/a/SKILL.md': skillFile('same', 'from a'),
      '.claude/skills/c/SKILL.md': skillFile('Zed', 'upper case first'),
    });
    expect((await skills(nodeApp(root))).body.skills.map((s: { name: string; description: string }) => `${s.name}:${s.description}`)).toEqual([
      'Zed:upper case first',
      'same:from a',
      'same:from b',
    ]);
  });

  it('requires the token', async () => {
    const root = await folder();
    const res = await nodeApp(root).fetch(request('/api/skills', { headers: { authorization: 'Bearer wrong' } }));
    expect(res.status).toBe(401);
  });
});

describe('skillMetadata', () => {
  it('falls back to the folder name and an empty description', () => {
    expect(skillMetadata('', 'dir')).toEqual({ name: 'dir', description: '' });
    expect(skillMetadata('---\nname: x\n---', 'dir')).toEqual({ name: 'x', description: '' });
    expect(skillMetadata('---\ndescription: d\n---', 'dir')).toEqual({ name: 'dir', description: 'd' });
  });
});
