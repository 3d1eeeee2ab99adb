import type { ZipAdapter, ZipArchive } from './zip-adapter.ts';

/** Placeholder: the real implementation replaces this file. */
export class YauzlZipAdapter implements ZipAdapter {
  open(_bytes: Uint8Array): Promise<ZipArchive> {
    return Promise.reject(new Error('not implemented'));
  }
}
