/** One regular file of the live file list (./file-list.ts): what every search stage is handed. */
export interface ListedFile {
  /** Root-relative, '/'-separated. */
  readonly path: string;
  /** Absolute real path (the root's real path joined with `path`). */
  readonly absolutePath: string;
  readonly size: number;
  /** The FileSystem's version: changes whenever the content does. */
  readonly version: string;
  /**
   * Ignored by search's rules (001-search.md "What is searched": the listed folders at any depth, `.gitignore`
   * matches, package stores): searched only with `includeIgnored`.
   */
  readonly ignored: boolean;
}
