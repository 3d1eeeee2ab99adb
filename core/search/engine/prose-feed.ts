/**
 * Keeps the prose (BM25) index fed from the live file list: every non-ignored text file, docs first (a capped
 * index keeps what it took first), then code; afterwards each change the list reports. Reading and tokenizing
 * run in slices that yield to the event loop, so requests stay answered during the first pass, and wait while the
 * content index builds or a search runs (`mayRun`): the first searches of a fresh daemon get the cores.
 */
import type { FileFactsStore } from '../file-facts-store.ts';
import type { FileList } from '../file-list/file-list.ts';
import type { ListedFile } from '../file-list/listed-file.ts';
import { proseTerms, type ProseIndex, type ProseTerms } from '../prose/prose-index.ts';

const SLICE_MS = 8;
const DOC_EXTENSIONS = /\.(?:md|mdx|markdown|rst|txt|adoc)$/i;
const yieldToEventLoop = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

export interface ProseFeed {
  /** The first pass over the list has ended (the index holds what it will hold until files change). */
  readonly firstPassDone: boolean;
  /** Resolves once the first pass and every change so far are in the index. */
  settled(): Promise<void>;
  close(): void;
}

export interface ProseFeedOptions {
  /**
   * Past this many bytes of index the first pass stops reading files (each would only be tokenized to be
   * refused); later changes are still offered one by one.
   */
  fullAt?: number;
  /** Resolves when the feed may go on: it waits for the content index's first build and for running searches. */
  mayRun?: () => Promise<void>;
  /**
   * Each file's terms (and its text, when the index keeps it) between runs: a file found there at its version is
   * added from it, neither read nor tokenized (../file-facts-store.ts).
   */
  store?: FileFactsStore<StoredProse>;
}

/** What a prose store keeps of a file. */
export interface StoredProse {
  terms: ProseTerms;
  /** The text, when the index kept it (its best lines are then picked without a read). */
  text?: string;
}

export function feedProseIndex(
  prose: ProseIndex,
  fileList: FileList,
  read: (file: ListedFile) => Promise<Uint8Array | undefined>,
  options: ProseFeedOptions = {},
): ProseFeed {
  const fullAt = options.fullAt ?? Infinity;
  const queue = new Map<string, ListedFile | null>();
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  let closed = false;
  let running: Promise<void> | undefined;

  const all = fileList.files({ includeIgnored: false });
  const first = [...all.filter((file) => DOC_EXTENSIONS.test(file.path)), ...all.filter((file) => !DOC_EXTENSIONS.test(file.path))];
  const firstPass = new Set<string>();
  for (const file of first) {
    queue.set(file.path, file);
    firstPass.add(file.path);
  }
  let full = false;
  const unsubscribe = fileList.onChange((events) => {
    for (const event of events) {
      if (event.kind === 'reset') for (const file of fileList.files({ includeIgnored: false })) queue.set(file.path, file);
      else if (event.kind === 'remove') queue.set(event.path, null);
      else queue.set(event.file.path, event.file.ignored ? null : event.file);
    }
    drain();
  });

  async function apply(path: string, file: ListedFile | null): Promise<void> {
    if (file === null) {
      prose.remove(path);
      return;
    }
    if (prose.has(path, file.version)) return;
    // A store that fails is one that holds nothing: the file is read, as without one.
    const stored = await options.store?.get(path, file.version).catch(() => undefined);
    if (stored !== undefined) {
      prose.addCounted({ path, version: file.version, ...stored });
      return;
    }
    const bytes = await read(file);
    if (bytes === undefined || bytes.includes(0)) {
      prose.remove(path);
      return;
    }
    const text = decoder.decode(bytes);
    const terms = proseTerms(text);
    prose.addCounted({ path, version: file.version, text, terms });
    // Refused documents too: a restarted index refuses them again without reading them.
    await options.store?.put(path, file.version, prose.keepsText(path) ? { terms, text } : { terms }).catch(() => {});
  }

  function drain(): Promise<void> {
    running ??= (async () => {
      let sliceStart = Date.now();
      while (!closed && queue.size > 0) {
        await options.mayRun?.();
        const [path, file] = queue.entries().next().value!;
        queue.delete(path);
        const ofFirstPass = firstPass.delete(path);
        if (ofFirstPass && full) continue;
        await apply(path, file);
        if (ofFirstPass && !full && prose.stats().approxBytes >= fullAt) full = true;
        if (Date.now() - sliceStart > SLICE_MS) {
          await yieldToEventLoop();
          sliceStart = Date.now();
        }
      }
    })().finally(() => {
      running = undefined;
      if (!closed && queue.size > 0) void drain();
    });
    return running;
  }

  void drain();
  return {
    get firstPassDone() {
      return firstPass.size === 0;
    },
    async settled() {
      while (running !== undefined) await running;
    },
    close() {
      closed = true;
      unsubscribe();
    },
  };
}
