import { Router, type IRequest } from 'itty-router';
import { listFiles } from '../handlers/api/list-files.ts';
import { rawFile } from '../handlers/api/raw-file.ts';
import { readFile } from '../handlers/api/read-file.ts';
import { searchFiles } from '../handlers/api/search-files.ts';
import { listSkills } from '../handlers/api/skills.ts';
import { terminal } from '../handlers/api/terminal.ts';
import { writeFile } from '../handlers/api/write-file.ts';
import { health } from '../handlers/health.ts';
import type { AuthConfig } from './auth.ts';
import type { WorkspaceContext } from './context.ts';
import { dialectGuard } from './dialect.ts';
import { jsonResponse } from './errors/render.ts';

/** The route table: every endpoint is a standalone fetch handler; the guard adds auth and error shape. */
export function createRouter({ base, auth }: { base: string; auth: AuthConfig }) {
  const ori = dialectGuard('ori', auth);

  return Router<IRequest, [WorkspaceContext], Response>({ base })
    .get('/healthz', health)
    // ori — seed 000
    .get('/api/files', ori(listFiles))
    .get('/api/files/search', ori(searchFiles))
    .get('/api/file', ori(readFile))
    .put('/api/file', ori(writeFile))
    .get('/api/raw', ori(rawFile))
    .head('/api/raw', ori(rawFile))
    .get('/api/skills', ori(listSkills))
    .get('/ws/terminal', ori(terminal))
    // everything else
    .all('*', () => jsonResponse({ error: 'not found' }, 404));
}
