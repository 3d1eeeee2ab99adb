/**
 * `workspace-api/node`: the app with every Node power wired (disk, pty, processes, git, zip, watcher, search
 * workers, the panel), the daemon's server, and the local-disk FileSystem (docs/package.md#entry-points).
 */
export { createNodeWorkspaceApp, type NodeWorkspaceApp, type NodeWorkspaceAppOptions } from '../node/node-workspace-app.ts';
export { startNodeServer, type NodeServer, type NodeServerOptions } from '../node/server.ts';
export { NodeFileSystem } from '../../adapters/fs/node-file-system.ts';
