/**
 * Sign-in (docs/panel.md#sign-in): the token arrives once in the URL the daemon prints (`/?token=…`). The page
 * keeps it in this tab's sessionStorage (per origin, per tab, gone with the tab), takes it out of the address bar
 * at once so it is not bookmarked, shared or sent as a referrer, and sends it as a header on every call (and as
 * `?token=` only where a browser cannot set headers: WebSocket upgrades and media links).
 */
const STORAGE_KEY = 'workspace-api.token';

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

/** The daemon's base URL: the page's folder (`/`, or a gateway's `/sandbox/ws1/`), without the trailing slash. */
export function baseUrlOf(location: Location): string {
  return new URL('.', location.href).href.replace(/\/$/, '');
}
