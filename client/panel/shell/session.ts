/**
 * Sign-in (docs/panel.md#sign-in): the token arrives once in the URL the daemon prints (`/?token=…`). The page
 * keeps it in this tab's sessionStorage (per origin, per tab, gone with the tab), takes it out of the address bar
 * at once so it is not bookmarked, shared or sent as a referrer, and sends it as a header on every call (and as
 * `?token=` only where a browser cannot set headers: WebSocket upgrades and media links).
 */
const STORAGE_KEY = 'workspace-api.token';
/** Why the last page of this tab signed out (it reloaded to do so): the fresh page's sign-in screen says it. */
const SIGNED_OUT_KEY = 'workspace-api.signed-out';

/** Why the sign-in screen shows: no token at all, or one the daemon refused. */
export type SignInReason = 'missing' | 'refused';

export function takeToken(location: Location, history: History, storage: Storage): string | undefined {
  const url = new URL(location.href);
  const fromUrl = url.searchParams.get('token');
  if (fromUrl !== null) {
    url.searchParams.delete('token');
    history.replaceState(history.state, '', url.pathname + url.search + url.hash);
    if (fromUrl !== '') {
      storage.setItem(STORAGE_KEY, fromUrl);
      return fromUrl;
    }
  }
  return storage.getItem(STORAGE_KEY) ?? undefined;
}

export function saveToken(storage: Storage, token: string): void {
  storage.setItem(STORAGE_KEY, token);
}

export function forgetToken(storage: Storage): void {
  storage.removeItem(STORAGE_KEY);
}

/** Signing out of a mounted panel: the token is forgotten and the reason kept for the page that comes next. */
export function rememberSignOut(storage: Storage, reason: SignInReason): void {
  forgetToken(storage);
  storage.setItem(SIGNED_OUT_KEY, reason);
}

/** The reason a previous page of this tab signed out, once (it is removed). */
export function takeSignOutReason(storage: Storage): SignInReason | undefined {
  const reason = storage.getItem(SIGNED_OUT_KEY);
  storage.removeItem(SIGNED_OUT_KEY);
  return reason === 'missing' || reason === 'refused' ? reason : undefined;
}

/** The daemon's base URL: the page's folder (`/`, or a gateway's `/sandbox/ws1/`), without the trailing slash. */
export function baseUrlOf(location: Location): string {
  return new URL('.', location.href).href.replace(/\/$/, '');
}
