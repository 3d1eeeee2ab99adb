// A stranger's TypeScript, type-checked against the package's published declarations (strict, NodeNext).
import { createWorkspaceApp, WorkspaceError, type WorkspaceApp } from 'workspace-api';
import { MemoryFileSystem, type FileSystem } from 'workspace-api/fs';
import { createNodeWorkspaceApp, startNodeServer, type NodeServer, type NodeWorkspaceApp } from 'workspace-api/node';
import { createWorkspaceClient, WorkspaceClientError, type HttpAnswer } from 'workspace-api/client';
import worker, { WorkspaceObject } from 'workspace-api/worker';

const fs: FileSystem = new MemoryFileSystem({ '/w/a.txt': 'alpha' });
const app: WorkspaceApp = createWorkspaceApp({ fs, root: '/w', auth: { token: 't' }, basePath: '/sandbox/w' });
const onNode: NodeWorkspaceApp = createNodeWorkspaceApp({ root: '/srv/w', token: 't', basePath: '/sandbox/n' });
const token: string | undefined = onNode.token;
const started: Promise<NodeServer> = startNodeServer({ root: '/srv/w', port: 0 });

export async function use(): Promise<string> {
  const api = createWorkspaceClient({ baseUrl: 'http://in.process/sandbox/w', token: 't', fetch: (request) => app.fetch(request) });
  const file = await api.call('GET /api/file', { query: { path: 'a.txt' } });
  const tree: HttpAnswer<'GET /workspace/tree'> = await api.call('GET /workspace/tree');
  // @ts-expect-error not a route of the daemon
  await api.call('GET /no/such/route');
  // @ts-expect-error the file route needs its path
  await api.call('GET /api/file', { query: {} });
  const text: string = await api.rpc().call('read_file', { path: 'a.txt' });
  const response: Response = await worker.fetch(new Request('http://worker/healthz'), {});
  try {
    await api.call('GET /workspace-files/stat', { query: { path: '../outside' } });
  } catch (error) {
    if (error instanceof WorkspaceClientError) return `${error.status}`;
  }
  void [file.content, tree.tree.length, text, response.status, token, started, new WorkspaceError('not-found', 'x'), WorkspaceObject];
  return 'ok';
}
