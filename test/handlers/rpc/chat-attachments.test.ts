import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachmentBytes } from '../../support/fake-agent-cli.ts';
import { finished, MiB, startChat, startChatFixture, waitForChunk, type ChatFixture } from './chat-fixture.ts';

const b64 = (bytes: string | Uint8Array) => Buffer.from(bytes).toString('base64');

describe('/ws chat_stream attachments', () => {
  let fx: ChatFixture;

  beforeAll(async () => {
    fx = await startChatFixture();
  });

  afterAll(async () => {
    await fx.close();
  });

  it('each one a `-f <file>` after all of args, in order: base64 (a data: URL too) wins over content, neither is skipped', async () => {
    const attachments = [
      { name: 'note.txt', base64: `data:text/plain;base64,${b64('héllo\n')}` },
      { name: 'plain.md', content: 'ünïcode, as UTF-8\n' },
      { name: 'nothing.txt' },
      { name: 'both.bin', base64: b64(new Uint8Array([0, 1, 2, 254, 255])), content: 'not this' },
      { name: 'empty.txt', content: '' },
    ];
    const { rid, prompt } = await startChat(fx.client, 'hello', { attachments });
    expect(await finished(fx.client, rid)).toEqual({ done: { id: rid }, stdout: ['hello from opencode'], stderr: [] });
    const run = fx.records.run(prompt)!;
    const files = run.files.map((file) => file.path);
    expect(files).toHaveLength(4);
    expect(run.argv).toEqual(['run', '--attach', expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), prompt, ...files.flatMap((file) => ['-f', file])]);
    expect(run.files.map((file) => attachmentBytes(file))).toEqual([
      Buffer.from('héllo\n'),
      Buffer.from('ünïcode, as UTF-8\n'),
      Buffer.from([0, 1, 2, 254, 255]),
      Buffer.alloc(0),
    ]);
    expect(new Set(files).size).toBe(4);
  });

  it('the files are owner-only (0600 in a 0700 folder) in the host’s temp folder, and gone when the run ends', async () => {
    const { rid, prompt } = await startChat(fx.client, 'exit3', { attachments: [{ name: 'a.txt', content: 'a' }, { name: 'b.txt', content: 'b' }] });
    expect((await finished(fx.client, rid)).done).toEqual({ id: rid, error: 'opencode exited with code 3' });
    const run = fx.records.run(prompt)!;
    expect(run.files.map(({ mode, folderMode }) => ({ mode, folderMode }))).toEqual([
      { mode: 0o600, folderMode: 0o700 },
      { mode: 0o600, folderMode: 0o700 },
    ]);
    for (const file of run.files) expect(file.path.startsWith(`${fx.tmp}/`), file.path).toBe(true);
    await fx.tempCleared();
    for (const file of run.files) expect(existsSync(dirname(file.path))).toBe(false);
  });

  it('two runs at once never share a file', async () => {
    const attachments = [{ name: 'same.txt', content: 'same' }];
    const [one, two] = await Promise.all([startChat(fx.client, 'hang', { attachments }), startChat(fx.client, 'hang', { attachments })]);
    await Promise.all([waitForChunk(fx.client, one.rid, 'ready'), waitForChunk(fx.client, two.rid, 'ready')]);
    const [first, second] = [fx.records.run(one.prompt)!, fx.records.run(two.prompt)!];
    expect(first.files[0]!.path).not.toBe(second.files[0]!.path);
    expect(await fx.client.ok('chat_cancel', { id: one.rid })).toEqual({ cancelled: true });
    expect(await fx.client.ok('chat_cancel', { id: two.rid })).toEqual({ cancelled: true });
    await Promise.all([finished(fx.client, one.rid), finished(fx.client, two.rid)]);
    await fx.tempCleared();
  });

  describe('refused in the done, before anything runs and with no file left behind', () => {
    async function refused(attachments: unknown, error: string | RegExp): Promise<void> {
      const { rid, prompt } = await startChat(fx.client, 'hello', { attachments });
      const outcome = await finished(fx.client, rid, 20_000);
      expect(outcome).toEqual({ done: { id: rid, error: typeof error === 'string' ? error : expect.stringMatching(error) }, stdout: [], stderr: [] });
      expect(fx.records.started(prompt)).toBe(false);
      await fx.tempCleared();
    }

    it('invalid base64, after good attachments', async () => {
      await refused(
        [
          { name: 'good.txt', content: 'fine' },
          { name: 'bad.png', base64: 'data:image/png;base64,iVBO@@@=' },
        ],
        /^Failed to decode attachment 'bad\.png': ./,
      );
    });

    it('more than 100 attachments (10 000)', async () => {
      const attachments = Array.from({ length: 10_000 }, (_, i) => ({ name: `a${i}.txt`, content: 'x' }));
      await refused(attachments, 'too many attachments (10000; at most 100)');
    });

    it('more than 32 MiB decoded in all', async () => {
      const half = 'x'.repeat(17 * MiB);
      await refused(
        [
          { name: 'one.txt', content: half },
          { name: 'two.txt', base64: b64(half) },
        ],
        /^attachments too large \(\d+ bytes; at most 33554432\)$/,
      );
    });

    it('a 60 MiB frame of one data: URL', async () => {
      const base64 = 'data:application/octet-stream;base64,' + 'QUJD'.repeat((60 * MiB) / 4);
      await refused([{ name: 'huge.bin', base64 }], `attachments too large (${(60 * MiB * 3) / 4} bytes; at most 33554432)`);
    });
  });

  it('exactly 100 attachments are fine', async () => {
    const attachments = Array.from({ length: 100 }, (_, i) => ({ name: `n${i}.txt`, content: String(i) }));
    const { rid, prompt } = await startChat(fx.client, 'hello', { attachments });
    expect((await finished(fx.client, rid)).done).toEqual({ id: rid });
    const run = fx.records.run(prompt)!;
    expect(run.files.map((file) => attachmentBytes(file).toString())).toEqual(attachments.map((attachment) => attachment.content));
    await fx.tempCleared();
  });
});
