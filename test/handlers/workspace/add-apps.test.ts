/**
 * `POST /workspace/repos/{repo}/apps` through Intentic's client, with real files, a real terminal session and a real
 * `npm install` (offline: the repo's .npmrc; no dependency comes from a registry) run through the install queue in
 * the project's install terminal, its output mirrored in the job's: the apps copied from a local
 * template source exactly (renamed packages, the stamp, `node_modules .git dist` left out, links as links, other
 * instance and shared dirs only where absent), the job's terminal text, the shipped templates, and every refusal
 * (BAD_REQUEST, NOT_FOUND, CONFLICT, PRECONDITION_FAILED) leaving the workspace exactly as it was.
 */
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orpcFailure } from '../../support/intentic-contract.ts';
import { GATED_PREINSTALL, heldAtGate, OFFLINE_NPMRC, openGate, useJobApp } from '../../support/job-app.ts';

const SHIPPED = fileURLToPath(new URL('../../../templates', import.meta.url));

/** relPath → content; `{link}` a symlink. */
type Files = Record<string, string | { link: string }>;

async function writeFiles(base: string, files: Files): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const path = join(base, rel);
    await mkdir(dirname(path), { recursive: true });
    if (typeof content === 'string') await writeFile(path, content);
    else await symlink(content.link, path);
  }
}

/** Every file and link under `dir` (relative paths → content, `-> target` for a link), minus `skip` names. */
async function snapshot(dir: string, skip: ReadonlySet<string> = new Set()): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (rel: string) => {
    for (const entry of (await readdir(join(dir, rel), { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (skip.has(entry.name)) continue;
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isSymbolicLink()) out[path] = `-> ${await readlink(join(dir, path))}`;
      else if (entry.isDirectory()) await walk(path);
      else out[path] = await readFile(join(dir, path), 'utf8');
    }
  };
  await walk('');
  return out;
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

const SOURCE: Files = {
  'templates.json': JSON.stringify({
    scope: '@acme/',
    shared: ['packages/config'],
    templates: {
      hello: { label: 'Hello', description: 'A web app', instance: ['apps/hello', 'packages/ui'] },
      api: { label: 'API', description: 'A service', instance: ['services/api'] },
    },
  }),
  'apps/hello/package.json': JSON.stringify({ name: '@acme/hello', private: true, scripts: { dev: 'node index.js' }, intentic: { owner: 'x' } }),
  'apps/hello/index.js': 'console.log("hello");\n',
  'apps/hello/src/entry.js': { link: '../index.js' },
  'apps/hello/node_modules/left-out/index.js': 'x',
  'apps/hello/dist/out.js': 'x',
  'apps/hello/.git/HEAD': 'x',
  'packages/ui/package.json': JSON.stringify({ name: '@acme/ui', version: '1.0.0' }),
  'packages/config/package.json': JSON.stringify({ name: '@acme/config', version: '1.0.0' }),
  'packages/config/dist/x.js': 'x',
  'services/api/package.json': JSON.stringify({ scripts: { dev: 'node main.js' }, name: '@acme/api' }),
  'services/api/main.js': 'console.log("api");\n',
};

const NPMRC = OFFLINE_NPMRC;
// Its install is held by its preinstall until the test opens the gate (test/support/job-app.ts).
const SHOP_PACKAGE = { name: 'shop', private: true, workspaces: ['apps/*', 'packages/*', 'services/*'], scripts: { preinstall: GATED_PREINSTALL } };

let source: string;
beforeAll(async () => {
  source = await mkdtemp(join(tmpdir(), 'wsapi-add-apps-source-'));
  await writeFiles(source, SOURCE);
});
afterAll(() => rm(source, { recursive: true, force: true }));

const jobs = useJobApp(
  () => ({
    '.intentic/config/templates.json': JSON.stringify({ source }),
    'shop/package.json': JSON.stringify(SHOP_PACKAGE),
    'shop/.npmrc': NPMRC,
    'shop/packages/ui/package.json': '{"name":"@acme/ui","version":"9.9.9"}',
    'site/README.md': '# site\n',
  }),
  { templatesDir: SHIPPED },
);

const addApps = (repo: string, apps: Array<{ template: string; name: string }>) => jobs.client.addApps({ repo, apps });
const failure = orpcFailure;
/** The job's session, once it has exited: its exit code and its text as lines. */
async function finished(repo: string): Promise<{ code: number | null; lines: string[] }> {
  const session = jobs.terminal(`panel-${repo}--add_apps`)!;
  const { code } = await session.exited;
  return { code, lines: session.text().split('\r\n') };
}

describe('POST /workspace/repos/{repo}/apps', () => {
  it('adds two apps: copies renamed and stamped, other and shared dirs where absent, then the project installs; CONFLICT while it runs', async () => {
    expect(await addApps('shop', [{ template: 'hello', name: 'web' }, { template: 'api', name: 'worker' }])).toEqual({ ok: true });
    // The job runs until its install is let go: a second request for the repo meanwhile is CONFLICT, and writes nothing.
    expect(await failure(addApps('shop', [{ template: 'hello', name: 'admin' }]))).toEqual({
      code: 'CONFLICT',
      status: 409,
      message: 'an add-apps job is running for repo "shop"',
    });
    await heldAtGate(jobs.root);
    expect(await failure(addApps('shop', [{ template: 'hello', name: 'admin' }]))).toEqual({
      code: 'CONFLICT',
      status: 409,
      message: 'an add-apps job is running for repo "shop"',
    });
    await openGate(jobs.root);
    const { code, lines } = await finished('shop');
    expect(lines.slice(0, 4)).toEqual(['Adding web (hello)…', 'Adding worker (api)…', 'added web, worker to shop', '$ npm install']);
    expect(code).toBe(0);
    // The install went through the queue, in the project's install terminal; the job's terminal mirrored all of it.
    const install = jobs.terminal('panel-shop--install')!;
    expect(install.info()).toMatchObject({ command: 'npm install', cwd: join(jobs.root, 'shop'), running: false, exitCode: 0 });
    expect(install.text()).toMatch(/added \d+ packages/);
    expect(lines.slice(4).join('\r\n')).toBe(install.text());
    expect(await snapshot(join(jobs.root, 'shop'), new Set(['node_modules', 'package-lock.json']))).toEqual({
      '.npmrc': NPMRC,
      'apps/web/index.js': 'console.log("hello");\n',
      'apps/web/package.json': json({ name: '@acme/web', private: true, scripts: { dev: 'node index.js' }, intentic: { owner: 'x', template: 'hello' } }),
      'apps/web/src/entry.js': '-> ../index.js',
      'package.json': JSON.stringify(SHOP_PACKAGE),
      'packages/config/package.json': JSON.stringify({ name: '@acme/config', version: '1.0.0' }),
      'packages/ui/package.json': '{"name":"@acme/ui","version":"9.9.9"}', // there already: left alone
      'services/worker/main.js': 'console.log("api");\n',
      'services/worker/package.json': json({ scripts: { dev: 'node main.js' }, name: '@acme/worker', intentic: { template: 'api' } }),
    });
    // The install ran in the repo's project: npm linked the new workspace members.
    expect(await readlink(join(jobs.root, 'shop/node_modules/@acme/web'))).toBe('../../apps/web');
    expect(await readlink(join(jobs.root, 'shop/node_modules/@acme/worker'))).toBe('../../services/worker');
    // The session is listed like any terminal, with what it did as its command.
    const listed = (await (await jobs.app.fetch(new Request('http://localhost/terminals', { headers: { authorization: 'Bearer test-token-0123456789' } }))).json()) as {
      terminals: Array<{ name: string; command: string; running: boolean; exitCode: number | null }>;
    };
    expect(listed.terminals.find((t) => t.name === 'panel-shop--add_apps')).toMatchObject({
      command: 'add apps to shop: web (hello), worker (api)',
      running: false,
      exitCode: 0,
    });
  });

  it('the shipped templates into a repo without a project: exact files and terminal, nothing to install', async () => {
    await rm(join(jobs.root, '.intentic/config/templates.json'));
    expect(await addApps('site', [{ template: 'node-service', name: 'api' }, { template: 'static-site', name: 'www' }])).toEqual({ ok: true });
    expect(await finished('site')).toEqual({ code: 0, lines: ['Adding api (node-service)…', 'Adding www (static-site)…', 'added api, www to site', ''] });
    const shipped = (rel: string) => readFile(join(SHIPPED, rel), 'utf8');
    const renamed = async (key: string, name: string) => {
      const pkg = JSON.parse(await shipped(`apps/${key}/package.json`));
      return json({ ...pkg, name: `@app/${name}`, intentic: { template: key } });
    };
    expect(await snapshot(join(jobs.root, 'site'))).toEqual({
      'README.md': '# site\n',
      'apps/api/package.json': await renamed('node-service', 'api'),
      'apps/api/server.js': await shipped('apps/node-service/server.js'),
      'apps/www/index.html': await shipped('apps/static-site/index.html'),
      'apps/www/package.json': await renamed('static-site', 'www'),
      'apps/www/serve.js': await shipped('apps/static-site/serve.js'),
      'apps/www/style.css': await shipped('apps/static-site/style.css'),
    });
  });

  it('the workspace itself (`root`) holds apps too: the rule accepts root, repo ids and top-level folders', async () => {
    await rm(join(jobs.root, '.intentic/config/templates.json'));
    expect(await addApps('root', [{ template: 'node-service', name: 'api' }])).toEqual({ ok: true });
    expect((await finished('root')).code).toBe(0);
    expect(JSON.parse(await readFile(join(jobs.root, 'apps/api/package.json'), 'utf8'))).toMatchObject({ name: '@app/api', intentic: { template: 'node-service' } });
  });

  it("a session someone started under the job's terminal name is CONFLICT (a job's own run: the first test)", async () => {
    const other = jobs.app.terminals!.start({ name: 'panel-shop--add_apps', command: 'sleep 30', cwd: jobs.root });
    expect(await failure(addApps('shop', [{ template: 'hello', name: 'admin' }]))).toEqual({
      code: 'CONFLICT',
      status: 409,
      message: 'an add-apps job is running for repo "shop"',
    });
    await other.kill();
    await expect(lstat(join(jobs.root, 'shop/apps/admin'))).rejects.toThrow(/ENOENT/);
  });

  describe('refusals write nothing', () => {
    const cases: Array<[string, string, Array<{ template: string; name: string }>, { code: string; status: number; message: string }]> = [
      ['an unknown template', 'shop', [{ template: 'hello', name: 'web' }, { template: 'nope', name: 'x' }], { code: 'BAD_REQUEST', status: 400, message: 'unknown template "nope"' }],
      [
        'a bad app name',
        'shop',
        [{ template: 'hello', name: 'Web' }],
        {
          code: 'BAD_REQUEST',
          status: 400,
          message: 'invalid body: apps.0.name: invalid app name "Web": use lower-case letters, digits and "-", starting with a letter',
        },
      ],
      ['no apps', 'shop', [], { code: 'BAD_REQUEST', status: 400, message: 'invalid body: apps: apps needs at least one app' }],
      ['a malformed repo', '.hidden', [{ template: 'hello', name: 'web' }], { code: 'BAD_REQUEST', status: 400, message: 'invalid repo ".hidden"' }],
      ['an unknown repo', 'nope', [{ template: 'hello', name: 'web' }], { code: 'NOT_FOUND', status: 404, message: 'no repo named "nope"' }],
      [
        'a name given twice',
        'shop',
        [{ template: 'hello', name: 'web' }, { template: 'api', name: 'web' }],
        { code: 'CONFLICT', status: 409, message: 'app name "web" is given twice' },
      ],
      [
        'an app folder that exists',
        'shop',
        [{ template: 'api', name: 'worker' }, { template: 'hello', name: 'ui' }],
        { code: 'CONFLICT', status: 409, message: '"apps/ui" already exists in repo "shop"' },
      ],
    ];
    it.each(cases)('%s', async (_name, repo, apps, expected) => {
      await mkdir(join(jobs.root, 'shop/apps/ui'), { recursive: true });
      const before = await snapshot(jobs.root);
      expect(await failure(addApps(repo, apps))).toEqual(expected);
      expect(await snapshot(jobs.root)).toEqual(before);
      expect(jobs.app.terminals!.list()).toEqual([]);
    });

    it('an unusable template source is PRECONDITION_FAILED', async () => {
      await writeFile(join(jobs.root, '.intentic/config/templates.json'), JSON.stringify({ source: 'nowhere' }));
      const before = await snapshot(jobs.root);
      expect(await failure(addApps('shop', [{ template: 'hello', name: 'web' }]))).toEqual({
        code: 'PRECONDITION_FAILED',
        status: 412,
        message: 'template source "nowhere" is not a folder',
      });
      expect(await snapshot(jobs.root)).toEqual(before);
    });
  });
});
