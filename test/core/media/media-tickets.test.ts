import { describe, expect, it } from 'vitest';
import { createMediaTickets, MIN_KEY_BYTES, type TicketSubject } from '../../../core/media/media-tickets.ts';

const HOUR = 60 * 60 * 1000;
const T0 = Date.UTC(2025, 0, 2, 3, 4, 5);
const KEY = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
const video: TicketSubject = { file: '/ws/media/clip.mp4', agent: undefined };

/** A clock the test moves by hand. */
function clock(start = T0) {
  let now = start;
  return { now: () => now, set: (ms: number) => (now = ms) };
}

describe('media tickets', () => {
  it('mints `<expiresAt>.<signature>` expiring one lifetime from now, and accepts it for the same file', async () => {
    const tickets = createMediaTickets({ ttlMs: HOUR, now: () => T0 });
    const minted = await tickets.mint(video);
    expect(minted).toEqual({ ticket: expect.stringMatching(/^\d+\.[A-Za-z0-9_-]{43}$/), expiresAt: T0 + HOUR });
    expect(minted.ticket.split('.')[0]).toBe(String(T0 + HOUR));
    expect(await tickets.verify(minted.ticket, video)).toEqual({ ok: true });
    expect(await tickets.verify(minted.ticket, { ...video })).toEqual({ ok: true });
  });

  it('is valid until its expiry and expired from that millisecond on (injected clock)', async () => {
    const time = clock();
    const tickets = createMediaTickets({ ttlMs: HOUR, now: time.now });
    const { ticket, expiresAt } = await tickets.mint(video);
    time.set(expiresAt - 1);
    expect(await tickets.verify(ticket, video)).toEqual({ ok: true });
    time.set(expiresAt);
    expect(await tickets.verify(ticket, video)).toEqual({ ok: false, reason: 'expired' });
    time.set(expiresAt + 24 * HOUR);
    expect(await tickets.verify(ticket, video)).toEqual({ ok: false, reason: 'expired' });
  });

  it('is bound to the one resolved file: another path is refused, however close', async () => {
    const tickets = createMediaTickets({ ttlMs: HOUR });
    const { ticket } = await tickets.mint(video);
    for (const file of ['/ws/media/clip.mp4 ', '/ws/media/clip.MP4', '/ws/media/clip.mp', '/ws/media', '/ws/other.mp4']) {
      expect(await tickets.verify(ticket, { file, agent: undefined }), file).toEqual({ ok: false, reason: 'invalid' });
    }
  });

  it('is bound to the agent whose view resolved it: the shared tree, another agent and no agent all differ', async () => {
    const tickets = createMediaTickets({ ttlMs: HOUR });
    const shared = await tickets.mint(video);
    const forA = await tickets.mint({ ...video, agent: 'a' });
    expect(await tickets.verify(forA.ticket, { ...video, agent: 'a' })).toEqual({ ok: true });
    expect(await tickets.verify(forA.ticket, { ...video, agent: 'b' })).toEqual({ ok: false, reason: 'invalid' });
    expect(await tickets.verify(forA.ticket, video)).toEqual({ ok: false, reason: 'invalid' });
    expect(await tickets.verify(shared.ticket, { ...video, agent: 'a' })).toEqual({ ok: false, reason: 'invalid' });
    // An agent literally named "null" is not the shared tree (the MAC input is typed JSON, not joined text).
    expect(await tickets.verify(shared.ticket, { ...video, agent: 'null' })).toEqual({ ok: false, reason: 'invalid' });
  });

  it('no path/agent split gives the same signed input twice', async () => {
    const tickets = createMediaTickets({ ttlMs: HOUR, key: KEY, now: () => T0 });
    const { ticket } = await tickets.mint({ file: '/ws/a","b', agent: 'c' });
    expect(await tickets.verify(ticket, { file: 'b', agent: 'c","/ws/a' })).toEqual({ ok: false, reason: 'invalid' });
    expect(await tickets.verify(ticket, { file: '/ws/a","b', agent: 'c' })).toEqual({ ok: true });
  });

  it('refuses a tampered ticket: a changed expiry or signature character', async () => {
    const tickets = createMediaTickets({ ttlMs: HOUR, now: () => T0 });
    const { ticket, expiresAt } = await tickets.mint(video);
    const [, signature] = ticket.split('.') as [string, string];
    const flipped = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1);
    expect(await tickets.verify(`${expiresAt}.${flipped}`, video)).toEqual({ ok: false, reason: 'invalid' });
    expect(await tickets.verify(`${expiresAt + 1}.${signature}`, video)).toEqual({ ok: false, reason: 'invalid' });
    expect(await tickets.verify(`${expiresAt - HOUR}.${signature}`, video)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('refuses a malformed ticket without checking a signature', async () => {
    const tickets = createMediaTickets({ ttlMs: HOUR, now: () => T0 });
    const { ticket, expiresAt } = await tickets.mint(video);
    const signature = ticket.split('.')[1]!;
    const malformed = [
      '',
      'x',
      signature,
      `${expiresAt}`,
      `${expiresAt}.`,
      `.${signature}`,
      `${expiresAt}.${signature}=`,
      `${expiresAt}.${signature.slice(1)}`,
      `${expiresAt}.${signature}A`,
      `0${expiresAt}.${signature}`,
      `+${expiresAt}.${signature}`,
      `${expiresAt}.0.${signature}`,
      ` ${ticket}`,
      `${ticket}\n`,
      `${expiresAt}.${signature.slice(0, 42)}+`,
      `${expiresAt}.${signature.slice(0, 42)}/`,
      `99999999999999999.${signature}`,
    ];
    for (const candidate of malformed) {
      expect(await tickets.verify(candidate, video), JSON.stringify(candidate)).toEqual({ ok: false, reason: 'malformed' });
    }
  });

  it('refuses a non-canonical signature encoding (the 43rd character carries 2 unused bits)', async () => {
    const tickets = createMediaTickets({ ttlMs: HOUR, now: () => T0 });
    const { ticket } = await tickets.mint(video);
    const [expiry, signature] = ticket.split('.') as [string, string];
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(signature.at(-1)!);
    // Same 32 bytes once decoded, but not what the encoder writes: not accepted as the same ticket.
    const sibling = `${expiry}.${signature.slice(0, 42)}${alphabet[last ^ 1]}`;
    expect(await tickets.verify(sibling, video)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('a random key per instance: a restarted daemon does not accept the old tickets', async () => {
    const before = createMediaTickets({ ttlMs: HOUR });
    const after = createMediaTickets({ ttlMs: HOUR });
    const { ticket } = await before.mint(video);
    expect(await after.verify(ticket, video)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('a configured key: tickets survive a new instance with the same key, not one with another key', async () => {
    const { ticket } = await createMediaTickets({ ttlMs: HOUR, key: KEY }).mint(video);
    expect(await createMediaTickets({ ttlMs: HOUR, key: KEY }).verify(ticket, video)).toEqual({ ok: true });
    const otherKey = KEY.map((b) => b ^ 0xff);
    expect(await createMediaTickets({ ttlMs: HOUR, key: otherKey }).verify(ticket, video)).toEqual({
      ok: false,
      reason: 'invalid',
    });
  });

  it('a ticket minted under a longer lifetime does not outlive the lifetime in force now', async () => {
    const { ticket } = await createMediaTickets({ ttlMs: 24 * HOUR, key: KEY, now: () => T0 }).mint(video);
    const shorter = createMediaTickets({ ttlMs: HOUR, key: KEY, now: () => T0 });
    expect(await shorter.verify(ticket, video)).toEqual({ ok: false, reason: 'invalid' });
    const later = createMediaTickets({ ttlMs: HOUR, key: KEY, now: () => T0 + 23 * HOUR });
    expect(await later.verify(ticket, video)).toEqual({ ok: true });
  });

  it('a clock stepped back up to a minute still accepts the tickets it minted; further back, not', async () => {
    const time = clock();
    const tickets = createMediaTickets({ ttlMs: HOUR, now: time.now });
    const { ticket } = await tickets.mint(video);
    time.set(T0 - 60_000);
    expect(await tickets.verify(ticket, video)).toEqual({ ok: true });
    time.set(T0 - 60_001);
    expect(await tickets.verify(ticket, video)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('copies the configured key: changing the caller’s array afterwards changes nothing', async () => {
    const key = Uint8Array.from(KEY);
    const tickets = createMediaTickets({ ttlMs: HOUR, key });
    const { ticket } = await tickets.mint(video);
    key.fill(0);
    expect(await tickets.verify(ticket, video)).toEqual({ ok: true });
  });

  it('refuses a short key and a lifetime that is not a positive integer', () => {
    expect(() => createMediaTickets({ ttlMs: HOUR, key: new Uint8Array(MIN_KEY_BYTES - 1) })).toThrow(
      'media tickets: the key must be at least 32 bytes',
    );
    for (const ttlMs of [0, -1, 1.5, Number.NaN, Infinity]) {
      expect(() => createMediaTickets({ ttlMs }), String(ttlMs)).toThrow(`media tickets: invalid lifetime ${ttlMs}`);
    }
  });
});
