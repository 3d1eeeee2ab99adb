import type { Capabilities } from '../../handlers/capabilities.ts';
import { createWorkspaceClient, WorkspaceClientError } from '../http-client.ts';
import { createRpcClient, type RpcClient } from '../rpc-client.ts';
import { mountFeatures } from './features.ts';
import { messageOf } from './shared/errors.ts';
import { formatOpenAddress } from './shell/address.ts';
import { PanelEvents } from './shell/events.ts';
import { PanelShell } from './shell/layout.ts';
import type { OpenAt, PanelContext } from './shell/panel-context.ts';
import { baseUrlOf, forgetToken, rememberSignOut, takeSignOutReason, takeToken, type SignInReason } from './shell/session.ts';
import { showSignIn, showUnavailable } from './shell/sign-in.ts';

/**
 * Boots the panel: takes the token, checks it with one call, then builds the shell and mounts every part
 * (./features.ts). A missing or refused token shows the sign-in screen instead. A refusal later (any call answered
 * 401, told as `unauthorized`: the daemon restarted with another token) forgets the token and reloads the page, so
 * that nothing of the session (streams, sockets, listeners, dialogs) survives behind the sign-in screen, which the
 * fresh page shows with the reason kept for it in sessionStorage.
 */
export async function startPanel(root: HTMLElement): Promise<void> {
  const storage = sessionStorage;
  const token = takeToken(location, history, storage);
  const previousReason = takeSignOutReason(storage);
  const baseUrl = baseUrlOf(location);
  const events = new PanelEvents();
  const reload = () => location.reload();

  let rpcClient: RpcClient | undefined;
  let mounted = false;
  let signedOut = false;
  const signOut = (reason: SignInReason) => {
    if (signedOut) return;
    signedOut = true;
    rpcClient?.close();
    if (mounted) {
      rememberSignOut(storage, reason);
      reload();
      return;
    }
    forgetToken(storage);
    showSignIn(root, reason, storage, reload);
  };
  events.on('unauthorized', () => signOut(token === undefined ? (previousReason ?? 'missing') : 'refused'));
  const client = createWorkspaceClient({
    baseUrl,
    ...(token === undefined ? {} : { token }),
    fetch: async (request) => {
      const response = await fetch(request);
      if (response.status === 401) events.emit('unauthorized', { message: `${request.method} ${new URL(request.url).pathname}: 401` });
      return response;
    },
  });

  // One guarded call says whether the token works, before anything is drawn, and what the daemon can do here.
  let capabilities: Capabilities;
  try {
    capabilities = await client.call('GET /capabilities');
  } catch (error) {
    if (error instanceof WorkspaceClientError) {
      if (error.status === 401) return; // signOut drew the sign-in screen
      showUnavailable(root, error.message);
    } else {
      showUnavailable(root, `the workspace server did not answer (${messageOf(error)})`);
    }
    return;
  }

  let opener: ((path: string, at?: OpenAt) => Promise<void>) | undefined;
  mounted = true;
  const shell = new PanelShell(root, location.host);
  const ctx: PanelContext = {
    client,
    baseUrl,
    token,
    capabilities,
    events,
    shell,
    rpc: () => (rpcClient ??= createRpcClient({ baseUrl, ...(token === undefined ? {} : { token }) })),
    openFile: async (path, at) => {
      // The address says what is open (`#open=src/a.ts:12`): a link to a file, and what a reload reopens.
      history.replaceState(history.state, '', formatOpenAddress({ path, ...(at?.line ? { line: at.line } : {}), ...(at?.line && at.column ? { column: at.column } : {}) }));
      if (!opener) throw new Error('no editor');
      await opener(path, at);
    },
    setFileOpener: (next) => {
      opener = next;
    },
    tokenUrl: (path, query = {}) => {
      const url = new URL(baseUrl + path);
      for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
      if (token !== undefined) url.searchParams.set('token', token);
      return url.href;
    },
    status: (message, kind = 'info') => shell.setStatus(message, kind),
  };
  try {
    await mountFeatures(ctx);
  } catch (error) {
    if (signedOut) return; // reloading to the sign-in screen
    // A part failed to mount: the others work; say what failed where it stays visible.
    ctx.status(`Part of the panel did not start: ${messageOf(error)}`, 'error');
    root.dataset.ready = 'partial';
    return;
  }
  root.dataset.ready = 'true';
  performance.mark('panel-ready'); // the first-load figure (npm run bench -- panel)
}
