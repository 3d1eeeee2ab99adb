import { describe, expect, it } from 'vitest';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { expectBytes, pattern, runFileSystemContract } from './contract.ts';

runFileSystemContract('MemoryFileSystem', async () => {
  const fs = new MemoryFileSystem();
  await fs.mkdir('/ws');
  return { fs, root: '/ws', cleanup: async () => {} };
});

// The same contract where the daemon uses it: confined to the folder it serves (FileSystem.confine).
runFileSystemContract('MemoryFileSystem confined to its root', async () => {
  const fs = new MemoryFileSystem();
  await fs.mkdir('/ws');
  fs.confine('/ws');
  return { fs, root: '/ws', cleanup: async () => {} };
});

describe('MemoryFileSystem specifics', () => {
  it('seeds files and their parent folders from absolute paths', async () => {
    const fs = new MemoryFileSystem({ '/ws/a/b.txt': 'bee', '/ws/bin': new Uint8Array([0, 1, 2]) });
    expect(new TextDecoder().decode(await fs.read('/ws/a/b.txt'))).toBe('bee');
    expectBytes(await fs.read('/ws/bin'), new Uint8Array([0, 1, 2]));
    expect((await fs.readdir('/ws')).map((e) => e.name).sort()).toEqual(['a', 'bin']);
    expect((await fs.stat('/ws/a')).type).toBe('dir');
  });

  it('copies bytes in and out: callers cannot mutate the stored file', async () => {
    const fs = new MemoryFileSystem();
    const input = new Uint8Array([1, 2, 3]);
    await fs.write('/f', input);
    input[0] = 99;
    expectBytes(await fs.read('/f'), new Uint8Array([1, 2, 3]));

    const buffer = Buffer.from([4, 5, 6]); // a Buffer's slice() is a view; the copy must not be
    await fs.write('/g', buffer);
    buffer[0] = 99;
    expectBytes(await fs.read('/g'), new Uint8Array([4, 5, 6]));

    const output = await fs.read('/f');
    output[1] = 99;
    (await fs.read('/f', { offset: 1 }))[0] = 98;
    expectBytes(await fs.read('/f'), new Uint8Array([1, 2, 3]));

    const reader = (await fs.readStream('/f')).getReader();
    const chunk = await reader.read();
    chunk.value![2] = 99;
    expectBytes(await fs.read('/f'), new Uint8Array([1, 2, 3]));
  });

  it('a copied file does not share later writes with its source', async () => {
    const fs = new MemoryFileSystem({ '/a': 'original' });
    await fs.copy('/a', '/b');
    await fs.write('/a', 'changed');
    expect(new TextDecoder().decode(await fs.read('/b'))).toBe('original');
  });

  it('streams in chunks of at most 64 KiB', async () => {
    const bytes = pattern(200_000);
    const fs = new MemoryFileSystem({ '/big': bytes });
    const sizes: number[] = [];
    const reader = (await fs.readStream('/big')).getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) sizes.push(r.value.byteLength);
    expect(sizes).toEqual([65_536, 65_536, 65_536, 200_000 - 3 * 65_536]);
  });

  it('versions come from one monotonic counter', async () => {
    const fs = new MemoryFileSystem();
    const a = Number((await fs.write('/a', 'x')).version);
    const b = Number((await fs.write('/b', 'y')).version);
    const a2 = Number((await fs.write('/a', 'z')).version);
    expect(Number.isInteger(a)).toBe(true);
    expect(b).toBeGreaterThan(a);
    expect(a2).toBeGreaterThan(b);
  });

  it('gives up after 40 links with loop, but follows a chain of 40', async () => {
    const fs = new MemoryFileSystem({ '/target': 'end' });
    await fs.symlink('/target', '/l0');
    for (let i = 1; i < 41; i++) await fs.symlink(`/l${i - 1}`, `/l${i}`);
    expect((await fs.stat('/l39')).type).toBe('file'); // 40 hops
    await expect(fs.stat('/l40')).rejects.toMatchObject({ code: 'loop' }); // 41 hops
  });
});
