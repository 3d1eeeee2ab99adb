/**
 * The `after` cursor: where a page stopped (an index into the query's ranked groups), signed for the query that
 * made it. A cursor is `<groups taken>.<MAC>`, the MAC an HMAC-SHA-256 over the query's identity and that number,
 * with a key random per instance. So a cursor the server could not have issued (made up, edited, from another
 * query, from before a restart) fails the check and is a BAD_REQUEST (docs/intentic-search.md: "ours"), and the server keeps
 * no state per query. The MAC is cut to 128 bits: forging it is still out of reach, and cursors stay short.
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { encodeBase64Url } from '../../text/base64.ts';
import { constantTimeEqual } from '../../text/constant-time.ts';

const DOMAIN = 'workspace-api/search-cursor/v1\n';
const MAC_BYTES = 16;
const CURSOR = /^(\d{1,9})\.([A-Za-z0-9_-]{22})$/;

export interface CursorCodec {
  /** A cursor resuming `identity`'s ranked groups at index `offset`. */
  issue(identity: string, offset: number): string;
  /** The offset `cursor` resumes at, or undefined when this instance did not issue it for `identity`. */
  open(cursor: string, identity: string): number | undefined;
}

export function createCursorCodec(key: Uint8Array = crypto.getRandomValues(new Uint8Array(32))): CursorCodec {
  const encoder = new TextEncoder();
  const mac = (identity: string, offset: number) =>
    encodeBase64Url(hmac(sha256, key, encoder.encode(`${DOMAIN}${offset}\n${identity}`)).subarray(0, MAC_BYTES));
  return {
    issue: (identity, offset) => `${offset}.${mac(identity, offset)}`,
    open(cursor, identity) {
      const match = CURSOR.exec(cursor);
      if (match === null) return undefined;
      const offset = Number(match[1]);
      return constantTimeEqual(match[2]!, mac(identity, offset)) ? offset : undefined;
    },
  };
}
