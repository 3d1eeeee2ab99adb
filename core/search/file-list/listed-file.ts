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
   * Ignored by search's rules (docs/intentic-search.md "What is searched": the listed folders at any depth, `.gitignore`
   * matches, package stores): searched only with `includeIgnored`.
   */
  readonly ignored: boolean;
}

export type MakeListedFile = (path: string, size: number, version: string, ignored: boolean) => ListedFile;

/**
 * The ListedFile maker of one root. The list holds one of these per file (78 579 on the kernel tree), so it
 * stores what cannot be derived and nothing twice:
 * - `absolutePath` is not stored but computed (root + path) by an own, enumerable accessor — one getter shared
 *   by every file of the root, so they share one hidden class and each costs no slot: a stored absolute path
 *   was ~86 bytes a file, and a query reads it only for the few files it opens.
 * - `version` is kept flat (see `flatString`).
 */
export function listedFileMaker(rootSlash: string): MakeListedFile {
  const absolutePath: PropertyDescriptor = {
    get(this: { path: string }) {
      return rootSlash + this.path;
    },
    enumerable: true,
  };
  return (path, size, version, ignored) =>
    Object.defineProperty({ path, size, version: flatString(version), ignored }, 'absolutePath', absolutePath) as ListedFile;
}

/**
 * `text`, flattened. A string made by concatenation (`a + b`, a template literal) is kept by V8 as a tree of its
 * parts until something reads its characters: a 21-character version such as `dn5b70my57nk-1l1z-366f7` holds
 * ~208 bytes that way, 40 flat. Reading a character flattens it in place, and the next collection drops the
 * parts. For strings kept for the daemon's lifetime, once per file; elsewhere a no-op.
 */
export function flatString(text: string): string {
  text.charCodeAt(0);
  return text;
}
