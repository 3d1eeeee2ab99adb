import { describe, expect, it } from 'vitest';
import { createOutputFeed } from '../../../core/terminals/output-feed.ts';

const text = (chunks: Uint8Array[]) => new TextDecoder().decode(Buffer.concat(chunks));

describe('createOutputFeed', () => {
  it('prints a bare \\n as \\r\\n, also when the \\r ended the previous chunk; \\r progress updates pass as they are', () => {
    const feed = createOutputFeed();
    const seen: Uint8Array[] = [];
    feed.process.onData((bytes) => seen.push(bytes));
    feed.write('a\nb\r\n');
    feed.write('Receiving 10%\rReceiving 100%\r');
    feed.write('\nlast\n');
    expect(text(seen)).toBe('a\r\nb\r\nReceiving 10%\rReceiving 100%\r\nlast\r\n');
  });

  it('kill aborts the signal and resolves once the producer ends; exit fires once with its code; input is ignored', async () => {
    const feed = createOutputFeed();
    const exits: Array<number | null> = [];
    feed.process.onExit(({ code }) => exits.push(code));
    feed.process.write('ignored');
    let killed = false;
    const kill = Promise.resolve(feed.process.kill()).then(() => (killed = true));
    expect(feed.signal.aborted).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(killed).toBe(false);
    feed.end(null);
    feed.end(3);
    await kill;
    expect(exits).toEqual([null]);
    const after: Uint8Array[] = [];
    feed.process.onData((bytes) => after.push(bytes));
    feed.write('late');
    expect(after).toEqual([]);
  });
});
