/** A search right after a write through the API sees it: the list first applies what the feed has delivered. */

/** How long a query waits for the list to apply changes already reported (an API write just before it). */
const CATCH_UP_MS = 100;

/**
 * Waits (briefly) until the list shows what the feed has already delivered, so a search right after a write
 * through the API sees it; a long batch (a re-walk after `resync`) is not waited for past CATCH_UP_MS.
 */
export async function caughtUp(list: { settled(): Promise<void> }): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([list.settled(), new Promise<void>((resolve) => (timer = setTimeout(resolve, CATCH_UP_MS)))]);
  clearTimeout(timer);
}
