/** What the scan pool (./scan-pool.ts) and its workers (./scan-worker.ts) say to each other. */
import type { FileTextMatch, FindQuery } from '../../core/search/text/find-query.ts';

/** One batch of one scan: the files by their index in the scan's list. */
export interface ScanBatchMessage {
  scan: number;
  query: FindQuery;
  /** `find`: each file's hits; `rule-out`: which files lack the query's required literals (scan-pool's ruleOut). */
  kind: ScanKind;
  /** [index in the scan's list, absolute path] */
  files: [number, string][];
  /** A file whose opened descriptor is not inside this folder is skipped (adapters/fs/node-confinement.ts). */
  within?: string;
}

export type ScanKind = 'find' | 'rule-out';

export type ScanReplyMessage =
  /** `results` for a `find` batch; `ruledOut` (indexes) for a `rule-out` one. */
  | { scan: number; ok: true; results: [number, FileTextMatch][]; ruledOut?: number[] }
  | { scan: number; ok: false; message: string };
