import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNodeServer, type NodeServer } from '../../runtime/node/server.ts';
import { nodeApp, request, tempWorkspace, TEST_TOKEN, type TempWorkspace } from '../support/workspace.ts';

/** `GET /capabilities` (docs/architecture.md#capabilities): what the runtime can do, behind the token. */

let workspace: TempWorkspace;
let server: NodeServer;

beforeAll(async () => {
  workspace = await tempWorkspace({ 'a.txt': 'a' });
  server = await startNodeServer({ root: workspace.root, auth: { token: TEST_TOKEN }, host: '127.0.0.1', port: 0, watch: false });
});
afterAll(async () => {
  await server?.close();
  await workspace?.cleanup();
});

describe('GET /capabilities', () => {
  it('the Node server can do everything but watch when told not to', async () => {
    const response = await fetch(`${server.url}/capabilities`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ version: '0.1.0', webSockets: true, terminals: true, commands: true, git: true, chat: true, watching: false });
  });

  it('an app given no Node adapters says so, field by field', async () => {
    const app = nodeApp(workspace.root);
    try {
      const response = await app.fetch(request('/capabilities'));
      expect(await response.json()).toEqual({ version: '0.1.0', webSockets: false, terminals: false, commands: false, git: false, chat: false, watching: false });
    } finally {
      await app.close();
    }
  });

  it('needs the token, in ori’s error shape', async () => {
    const response = await fetch(`${server.url}/capabilities`);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: 'missing or invalid token' });
  });
});
