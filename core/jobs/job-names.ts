/**
 * Names of the jobs' terminals (docs/intentic-projects.md#jobs-and-their-terminals): `panel-<key>` as
 * Intentic's browser builds them. With `<r>` = the repo (`root`, or its id with `/` as `_`): install of project D
 * `panel-<D, or root>--install` (chars outside `[A-Za-z0-9_-]` as `_`), dev server `panel-<r>--<app>`, tests
 * `panel-<r>--<session>`.
 */

export function repoKey(repo: string): string {
  return repo.replaceAll('/', '_');
}

export function installTerminalName(projectDir: string): string {
  return `panel-${(projectDir === '' ? 'root' : projectDir).replace(/[^A-Za-z0-9_-]/g, '_')}--install`;
}

export function devTerminalName(repo: string, app: string): string {
  return `panel-${repoKey(repo)}--${app}`;
}

export function testTerminalName(repo: string, session: string): string {
  return `panel-${repoKey(repo)}--${session}`;
}
