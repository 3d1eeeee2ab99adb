import { describe, expect, it } from 'vitest';
import { authenticate } from '../../../runtime/auth.ts';
import { MAX_SCOPED_TOKEN_TTL_MS, mintScopedToken, parseScope, verifyScopedToken } from '../../../core/auth/scoped-token.ts';

const FULL = 'full-token-0123456789';
const NOW = Date.UTC(2026, 11, 5, 12, 0, 0);

describe('scoped tokens', () => {
  it('carry their scope and expiry, signed: verified by the full token that minted them, until they expire', () => {
    const token = mintScopedToken(FULL, { kind: 'agent', agent: 'a-1' }, 60_000, NOW);
    expect(token).toMatch(/^wsa1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(verifyScopedToken(token, [FULL], NOW)).toEqual({ scope: { kind: 'agent', agent: 'a-1' }, expiresAt: NOW + 60_000 });
    expect(verifyScopedToken(token, [FULL], NOW + 59_999)).toBeDefined();
    expect(verifyScopedToken(token, [FULL], NOW + 60_000)).toBeUndefined();
    expect(verifyScopedToken(token, ['another'], NOW)).toBeUndefined();
    // One of several accepted tokens (the Worker's per-workspace token beside the deployment's) is enough.
    expect(verifyScopedToken(token, ['another', FULL], NOW)).toBeDefined();
  });

  it('refuse anything not exactly as minted', () => {
    const token = mintScopedToken(FULL, { kind: 'read' }, 60_000, NOW);
    const flipped = (at: number) => token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
    for (let at = 5; at < token.length; at += 7) expect(verifyScopedToken(flipped(at), [FULL], NOW), `char ${at}`).toBeUndefined();
    expect(verifyScopedToken(`${token}x`, [FULL], NOW)).toBeUndefined();
    expect(verifyScopedToken(token.replace('wsa1.', 'wsa2.'), [FULL], NOW)).toBeUndefined();
    expect(verifyScopedToken('', [FULL], NOW)).toBeUndefined();
    expect(verifyScopedToken(token, [''], NOW)).toBeUndefined();
  });

  it('are minted for a lifetime from a second to a year, by a non-empty full token', () => {
    expect(() => mintScopedToken(FULL, { kind: 'read' }, 999, NOW)).toThrow(RangeError);
    expect(() => mintScopedToken(FULL, { kind: 'read' }, MAX_SCOPED_TOKEN_TTL_MS + 1, NOW)).toThrow(RangeError);
    expect(() => mintScopedToken('', { kind: 'read' }, 60_000, NOW)).toThrow(RangeError);
    expect(verifyScopedToken(mintScopedToken(FULL, { kind: 'read' }, MAX_SCOPED_TOKEN_TTL_MS, NOW), [FULL], NOW)).toBeDefined();
  });

  it('name their scope as `read` or `agent:<id>`, the id as Intentic allows one', () => {
    expect(parseScope('read')).toEqual({ kind: 'read' });
    expect(parseScope('agent:x_1-2')).toEqual({ kind: 'agent', agent: 'x_1-2' });
    for (const bad of ['', 'write', 'full', 'agent:', 'agent:-x', 'agent:a/b', 'agent:' + 'a'.repeat(65), 'READ']) {
      expect(parseScope(bad), bad).toBeUndefined();
    }
  });
});

describe('authenticate', () => {
  const get = (headers: Record<string, string>, query = '') => new Request(`http://h/api/files${query}`, { headers });

  it('tells the full token from a scoped one, and refuses what neither is', () => {
    const read = mintScopedToken(FULL, { kind: 'read' }, 60_000);
    expect(authenticate(get({ authorization: `Bearer ${FULL}` }), { token: FULL })).toEqual({ kind: 'full' });
    expect(authenticate(get({ authorization: `Bearer ${read}` }), { token: FULL })).toMatchObject({ kind: 'scoped', grant: { scope: { kind: 'read' } } });
    expect(authenticate(get({}, `?token=${read}`), { token: FULL })).toMatchObject({ kind: 'scoped' });
    expect(authenticate(get({ authorization: 'Bearer nope' }), { token: FULL })).toBeUndefined();
    // Minted with a per-workspace token the Worker also accepts.
    const perWorkspace = mintScopedToken('workspace-token', { kind: 'read' }, 60_000);
    expect(authenticate(get({ authorization: `Bearer ${perWorkspace}` }), { token: FULL, alsoAccept: ['workspace-token'] })).toMatchObject({ kind: 'scoped' });
    expect(authenticate(get({}), { disabled: true })).toEqual({ kind: 'full' });
  });
});
