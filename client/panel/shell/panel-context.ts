import type { Capabilities } from '../../../handlers/capabilities.ts';
import type { WorkspaceClient } from '../../http-client.ts';
import type { RpcClient } from '../../rpc-client.ts';
import type { PanelEvents } from './events.ts';
import type { PanelShell } from './layout.ts';

/** Where to put the caret when a file opens (1-based, as search hits and editors count). */
export interface OpenAt {
  line?: number;
  column?: number;
}

/**
 * What every part of the panel gets: the typed client (client/http-client.ts) for HTTP routes, one shared `/ws`
 * client, the event bus between parts, and the shell's regions. Parts never reach into each other; they talk
 * through events and the few services here (`openFile` is the editor's, registered when it mounts).
 */
export interface PanelContext {
  readonly client: WorkspaceClient;
  /** The daemon's base URL (a gateway's base path included), no trailing slash. */
  readonly baseUrl: string;
  readonly token: string | undefined;
  /** What the daemon can do where it runs (`GET /capabilities`): parts offer only what works. */
  readonly capabilities: Capabilities;
  /** The one `/ws` connection the panel shares (made on first use; reconnects by itself). */
  rpc(): RpcClient;
  readonly events: PanelEvents;
  readonly shell: PanelShell;
  /** Opens a file in the editor (a root-relative path). */
  openFile(path: string, at?: OpenAt): Promise<void>;
  /** The editor registers how files open. */
  setFileOpener(opener: (path: string, at?: OpenAt) => Promise<void>): void;
  /** A URL under the daemon with `?token=` added: only for what a browser fetches itself (`<img>`, `<video>`, downloads). */
  tokenUrl(path: string, query?: Record<string, string>): string;
  /** A line in the status bar; errors stay until the next message. */
  status(message: string, kind?: 'info' | 'error'): void;
}
