import { describe, expect, it } from 'vitest';
import { isAllowedHost, isLoopbackHost } from '../../runtime/hosts.ts';

describe('isLoopbackHost', () => {
  it('knows the loopback names and addresses', () => {
    for (const host of ['localhost', 'LOCALHOST', 'localhost.', 'app.localhost', '127.0.0.1', '127.255.0.9', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1']) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
  });

  it('refuses everything else', () => {
    for (const host of ['0.0.0.0', '::', '10.0.0.1', '128.0.0.1', '127.0.0.256', '127.1', 'example.com', 'localhost.example.com', '::2', '::ffff:10.0.0.1', '']) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
  });
});

describe('isAllowedHost', () => {
  const at = (host: string) => new Request(`http://${host}/api/files`);
  it('allows loopback names and the bound host, nothing else', () => {
    expect(isAllowedHost(at('127.0.0.1:8787'), '127.0.0.1')).toBe(true);
    expect(isAllowedHost(at('localhost:8787'), '127.0.0.1')).toBe(true);
    expect(isAllowedHost(at('[::1]:8787'), '::1')).toBe(true);
    expect(isAllowedHost(at('box.internal:8787'), 'box.internal')).toBe(true);
    expect(isAllowedHost(at('evil.example:8787'), '127.0.0.1')).toBe(false);
  });
});
