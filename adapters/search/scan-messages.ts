/** What the scan pool (./scan-pool.ts) and its workers (./scan-worker.ts) say to each other. */
import type { FileTextMatch, FindQuery } from '../../core/search/text/find-query.ts';

/** One batch of one scan: the files by their index in the scan's list. */
export interface ScanBatchMessage {
  scan: number;
  query: FindQuery;
  /** [index in the scan's list, absolute path] */
  files: [number, string][];
}

export type ScanReplyMessage =
  | { scan: number; ok: true; results: [number, FileTextMatch][] }
  | { scan: number; ok: false; message: string };
