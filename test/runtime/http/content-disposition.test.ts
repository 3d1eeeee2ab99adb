import { describe, expect, it } from 'vitest';
import { attachmentDisposition } from '../../../runtime/http/content-disposition.ts';

describe('attachmentDisposition (RFC 6266 + RFC 8187 filename*)', () => {
  it.each([
    ['clip.mp4', `attachment; filename="clip.mp4"; filename*=UTF-8''clip.mp4`],
    // attr-chars pass through; space and the RFC 3986 sub-delims that are not attr-chars are encoded
    ["a b(1)*'!#$&+-.^_`|~.mp4", `attachment; filename="a b(1)*'!#$&+-.^_\`|~.mp4"; filename*=UTF-8''a%20b%281%29%2A%27!#$&+-.^_\`|~.mp4`],
    ['vidéo ünï.mp4', `attachment; filename="video uni.mp4"; filename*=UTF-8''vid%C3%A9o%20%C3%BCn%C3%AF.mp4`],
    ['日本語.webm', `attachment; filename="___.webm"; filename*=UTF-8''%E6%97%A5%E6%9C%AC%E8%AA%9E.webm`],
    ['emoji 🎬.mov', `attachment; filename="emoji _.mov"; filename*=UTF-8''emoji%20%F0%9F%8E%AC.mov`],
    ['say "hi".mp3', `attachment; filename="say \\"hi\\".mp3"; filename*=UTF-8''say%20%22hi%22.mp3`],
    ['back\\slash.mp3', `attachment; filename="back\\\\slash.mp3"; filename*=UTF-8''back%5Cslash.mp3`],
    ['line\nbreak\r\t.mp3', `attachment; filename="line_break__.mp3"; filename*=UTF-8''line%0Abreak%0D%09.mp3`],
    ['del\x7f.mp3', `attachment; filename="del_.mp3"; filename*=UTF-8''del%7F.mp3`],
    ['%41 literal.mp3', `attachment; filename="%41 literal.mp3"; filename*=UTF-8''%2541%20literal.mp3`],
    ['lone \ud800 surrogate', `attachment; filename="lone _ surrogate"; filename*=UTF-8''lone%20%EF%BF%BD%20surrogate`],
  ])('%j', (name, expected) => {
    expect(attachmentDisposition(name)).toBe(expected);
  });

  it('is always a valid header value (printable ASCII only), whatever the name', () => {
    for (const name of ['\u0000\u0001\u001f', 'ß\u00ff\u0100', '\ufeffbom', '"\\"\\']) {
      const value = attachmentDisposition(name);
      expect(value, JSON.stringify(name)).toMatch(/^[\x20-\x7e]+$/);
      expect(() => new Headers({ 'content-disposition': value })).not.toThrow();
    }
  });
});
