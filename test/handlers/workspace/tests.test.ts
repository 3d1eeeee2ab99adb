/**
 * `POST /workspace/repos/{repo}/tests` through Intentic's client, over the real project model and a real pty: each
 * dir's test script in order in `panel-<r>--<session>`, on past a failing one, the output in the terminal; bad
 * sessions, taken names and dirs outside the repo refused before anything starts.
 */
import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { orpcFailure } from '../../support/intentic-contract.ts';
import { useJobApp } from '../../support/job-app.ts';

const jobs = useJobApp({
  'lib/package.json': JSON.stringify({ name: 'lib', private: true, workspaces: ['packages/*'] }),
  'lib/packages/core/package.json': JSON.stringify({ name: 'core', scripts: { test: 'echo core-tests-ran; echo 1 failed; exit 1' } }),
  'lib/packages/util/package.json': JSON.stringify({ name: 'util', scripts: { test: 'echo util-tests-ran; echo all passed' } }),
  'other/a.txt': 'x',
});

const client = () => jobs.client;
const failure = orpcFailure;
/** The terminal's text with the pty's CRLF as LF, without colours and npm's progress spinner. */
const linesOf = (text: string) =>
  text
    .replaceAll('\r\n', '\n')
    .replace(/\x1b\[[0-9;]*[A-Za-z]/g, '')
    .replace(/[\u2800-\u28ff]/g, '');

describe('POST /workspace/repos/{repo}/tests', () => {
  it('runs each dir in order in panel-lib--unit; the first fails, the second still runs; the output stays in the terminal', async () => {
    expect(await client().runTests({ repo: 'lib', session: 'unit', dirs: ['packages/core', 'packages/util'] })).toEqual({ ok: true });
    const session = jobs.terminal('panel-lib--unit')!;
    expect(session.info()).toMatchObject({ cwd: join(jobs.root, 'lib') });
    expect((await session.exited).code).toBe(1);
    const text = linesOf(session.text());
    const order = ['==> packages/core: npm test', 'core-tests-ran', '1 failed', '==> packages/util: npm test', 'util-tests-ran', 'all passed'].map((line) =>
      `\n${text}`.indexOf(`\n${line}\n`), // whole lines (npm's own header echoes the script)
    );
    expect(order.every((at) => at >= 0), JSON.stringify(text)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // A finished run keeps its output; starting the key again replaces it.
    await client().runTests({ repo: 'lib', session: 'unit', dirs: ['packages/util'] });
    const again = jobs.terminal('panel-lib--unit')!;
    expect(again).not.toBe(session);
    expect((await again.exited).code).toBe(0);
    expect(linesOf(again.text())).not.toContain('core-tests-ran');
  });

  it('refuses malformed and taken session names, and dirs outside the repo or missing, before anything starts', async () => {
    await symlink(join(jobs.root, 'other'), join(jobs.root, 'lib/out'));
    const run = (session: string, dirs: string[]) => failure(client().runTests({ repo: 'lib', session, dirs }));
    expect(await run('Unit', [''])).toEqual({ code: 'BAD_REQUEST', status: 400, message: 'invalid session "Unit": it must match ^[a-z0-9][a-z0-9_-]*$' });
    expect(await run('-x', [''])).toEqual({ code: 'BAD_REQUEST', status: 400, message: 'invalid session "-x": it must match ^[a-z0-9][a-z0-9_-]*$' });
    for (const taken of ['install', 'add_apps']) {
      expect(await run(taken, [''])).toEqual({ code: 'BAD_REQUEST', status: 400, message: `invalid session "${taken}": that terminal is taken (install, add_apps)` });
    }
    expect(await run('unit', [])).toMatchObject({ code: 'BAD_REQUEST', message: 'invalid body: dirs: at least one dir' });
    const dir = (given: string, why: string) => ({ code: 'BAD_REQUEST', status: 400, message: `invalid dir ${JSON.stringify(given)}: ${why}` });
    expect(await run('unit', ['packages/core', '../other'])).toEqual(dir('../other', 'has a ".." segment'));
    expect(await run('unit', ['packages/core', join(jobs.root, 'lib')])).toEqual(dir(join(jobs.root, 'lib'), 'is absolute'));
    expect(await run('unit', ['packages/core', 'out'])).toEqual(dir('out', 'it is outside repo "lib"'));
    expect(await run('unit', ['packages/core', 'packages/nope'])).toEqual(dir('packages/nope', 'no such folder in repo "lib"'));
    expect(await run('unit', ['packages/core/package.json'])).toEqual(dir('packages/core/package.json', 'no such folder in repo "lib"'));
    expect(await failure(client().runTests({ repo: 'nope', session: 'unit', dirs: [''] }))).toEqual({ code: 'NOT_FOUND', status: 404, message: 'no repo named "nope"' });
    expect(jobs.app.terminals!.list()).toEqual([]);
  });
});
