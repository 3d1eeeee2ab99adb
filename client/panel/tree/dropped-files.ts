/** A dropped file with its path relative to the drop (`photos/a.png` when the folder `photos` was dropped). */
export interface DroppedFile {
  path: string;
  file: File;
}

export interface Dropped {
  files: DroppedFile[];
  /** Folders dropped or found inside, relative like the files (so empty ones are made too). */
  folders: string[];
}

/**
 * What a drop from the operating system holds. The entries must be taken while the drop event runs (a
 * DataTransfer is emptied after it), so this is called synchronously there and reads folders afterwards. Where
 * the browser gives no entries (a DataTransfer made by a script), the plain file list is used.
 */
export function readDrop(transfer: DataTransfer): () => Promise<Dropped> {
  const items = [...transfer.items].filter((item) => item.kind === 'file');
  const entries = items.map((item) => item.webkitGetAsEntry?.() ?? null);
  const files = [...transfer.files];
  return async () => {
    if (entries.length === 0 || entries.some((entry) => entry === null)) return { files: files.map((file) => ({ path: file.name, file })), folders: [] };
    const dropped: Dropped = { files: [], folders: [] };
    for (const entry of entries as FileSystemEntry[]) await walk(entry, entry.name, dropped);
    return dropped;
  };
}

async function walk(entry: FileSystemEntry, path: string, into: Dropped): Promise<void> {
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    into.files.push({ path, file });
    return;
  }
  if (!entry.isDirectory) return;
  into.folders.push(path);
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  // readEntries answers in batches until an empty one.
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) break;
    for (const child of batch) await walk(child, `${path}/${child.name}`, into);
  }
}
