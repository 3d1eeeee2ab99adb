import { describe, expect, it } from 'vitest';
import { MemoryFileSystem } from '../../adapters/fs/memory-file-system.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { dialectGuard } from '../../runtime/dialect.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';

const ctx = { fs: new MemoryFileSystem() } as unknown as WorkspaceContext;
const auth = { auth: { token: 'secret-token' }, origins: { allowedOrigins: [] } };
const ok = () => new Response('served');

describe('dialectGuard', () => {
  it('demands the token by default, in the dialect’s error shape', async () => {
    const res = await dialectGuard('intentic-bytes', auth)(ok)(new Request('http://localhost/x'), ctx);
    expect([res.status, await res.json()]).toEqual([401, { error: 'missing or invalid token' }]);
    const authorised = await dialectGuard('intentic-bytes', auth)(ok)(
      new Request('http://localhost/x', { headers: { authorization: 'Bearer secret-token' } }),
      ctx,
    );
    expect([authorised.status, await authorised.text()]).toEqual([200, 'served']);
  });

  it('authorizesItself: the handler runs without a token, and what it throws is still rendered', async () => {
    const guard = dialectGuard('intentic-bytes', auth, { authorizesItself: true });
    const served = await guard(ok)(new Request('http://localhost/x'), ctx);
    expect([served.status, await served.text()]).toEqual([200, 'served']);
    const refused = await guard(() => {
      throw new WorkspaceError('unauthorized', 'missing media ticket');
    })(new Request('http://localhost/x'), ctx);
    expect([refused.status, await refused.json()]).toEqual([401, { error: 'missing media ticket' }]);
  });
});
