import { describe, expect, it } from 'vitest';
import { createResponse } from '../../../runtime/http/response.ts';
import { NodeResponse } from '../../../runtime/node/node-response.ts';
import { startNodeServer } from '../../../runtime/node/server.ts';
import { tempWorkspace } from '../../support/workspace.ts';

describe('the Response implementation a Node server installs (runtime/http/response.ts)', () => {
  it('is the Node one while a server runs, and the one before it once the last server has closed', async () => {
    const workspace = await tempWorkspace();
    try {
      expect(createResponse('x').constructor).toBe(globalThis.Response);
      const first = await startNodeServer({ root: workspace.root, port: 0, watch: false, acceptors: 1 });
      expect(createResponse('x')).toBeInstanceOf(NodeResponse);
      const second = await startNodeServer({ root: workspace.root, port: 0, watch: false, acceptors: 1 });
      await first.close();
      expect(createResponse('x')).toBeInstanceOf(NodeResponse);
      await second.close();
      expect(createResponse('x').constructor).toBe(globalThis.Response);

      // A server that could not listen leaves it as it was too.
      const taken = await startNodeServer({ root: workspace.root, port: 0, watch: false, acceptors: 1 });
      await expect(startNodeServer({ root: workspace.root, port: taken.port, watch: false, acceptors: 1 })).rejects.toThrow(/EADDRINUSE/);
      await taken.close();
      expect(createResponse('x').constructor).toBe(globalThis.Response);
    } finally {
      await workspace.cleanup();
    }
  });
});
