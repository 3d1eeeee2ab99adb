/**
 * `workspace-api/client`: typed clients of the HTTP routes and the `/ws` protocol, for browsers, Node and Workers
 * (docs/architecture.md#typed-clients). Only `fetch` and `WebSocket`: no `node:*`.
 */
export {
  createWorkspaceClient,
  WorkspaceClientError,
  type HttpAnswer,
  type HttpInput,
  type HttpRoute,
  type JsonRoute,
  type WorkspaceClient,
  type WorkspaceClientOptions,
} from '../../client/http-client.ts';
export {
  createRpcClient,
  RpcCallError,
  RpcDisconnectedError,
  type CallOptions,
  type RpcClient,
  type RpcClientOptions,
  type RpcClientState,
  type WebSocketConstructor,
  type WebSocketLike,
} from '../../client/rpc-client.ts';
export type { RpcArgs, RpcCommandName, RpcEvents, RpcResult } from '../../handlers/rpc/command-types.ts';
