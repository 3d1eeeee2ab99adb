/**
 * `workspace-api`: the app every runtime mounts (docs/package.md#entry-points). Edge-clean: nothing here imports
 * `node:*`, so it runs on Node, Workers, Bun, Deno and in a browser's service worker alike. The Node adapters are in
 * `workspace-api/node`, the storage interface and the in-memory backend in `workspace-api/fs`.
 */
export { createWorkspaceApp } from '../app.ts';
export type { RequestEnv, WorkspaceApp, WorkspaceAppOptions } from '../app.ts';
export { generateToken, type AuthConfig } from '../auth.ts';
export { mintScopedToken, verifyScopedToken, parseScope, type TokenScope, type ScopedGrant } from '../../core/auth/scoped-token.ts';
export { defaultLimits, type Limits } from '../context.ts';
export { WorkspaceError, type WorkspaceErrorCode } from '../../core/errors/workspace-error.ts';
export type { ServerSocket, SocketOpenHandler, Upgrader, UpgradeOptions } from '../websocket.ts';
export { panelAssetsFrom, type PanelAsset, type PanelAssetMap, type PanelAssets } from '../panel/panel-assets.ts';
export type { ChangeFeed } from '../../core/changes/change-feed.ts';
