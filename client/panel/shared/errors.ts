/** The text to show for a failure: the daemon's own message (WorkspaceClientError and RpcCallError carry it), else the error's. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
