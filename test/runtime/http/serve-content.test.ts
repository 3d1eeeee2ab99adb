import { describe, expect, it, vi } from 'vitest';
import type { ReadStreamOptions } from '../../../adapters/fs/file-system.ts';
import {
  formatHttpDate,
  multipartLayout,
  parseHttpDate,
  parseRange,
  scanETag,
  SERVE_READ,
  serveContent,
  type ByteSpan,
  type ServeContentOptions,
} from '../../../runtime/http/serve-content.ts';

// ---------------------------------------------------------------------------------------------------------
// parseRange — Go's ParseRangeTests (fs_test.go), with the error kind made explicit
// ---------------------------------------------------------------------------------------------------------

const INVALID = 'invalid range';
const NO_OVERLAP = 'invalid range: failed to overlap';
/** [header, size, ranges as [start, endExclusive] pairs | error message] */
const rangeCases: Array<[string, number, Array<[number, number]> | string]> = [
  ['', 0, []],
  ['', 1000, []],
  ['foo', 0, INVALID],
  ['bytes=', 0, []],
  ['bytes=7', 10, INVALID],
  ['bytes= 7 ', 10, INVALID],
  ['bytes=1-', 0, NO_OVERLAP],
  ['bytes=5-4', 10, INVALID],
  ['bytes=0-2,5-4', 10, INVALID],
  ['bytes=2-5,4-3', 10, INVALID],
  ['bytes=--5,4--3', 10, INVALID],
  ['bytes=A-', 10, INVALID],
  ['bytes=A- ', 10, INVALID],
  ['bytes=A-Z', 10, INVALID],
  ['bytes= -Z', 10, INVALID],
  ['bytes=5-Z', 10, INVALID],
  ['bytes=Ran-dom, garbage', 10, INVALID],
  ['bytes=0x01-0x02', 10, INVALID],
  ['bytes=         ', 10, []],
  ['bytes= , , ,   ', 10, []],
  ['bytes=-', 10, INVALID],
  ['bytes=1_0-20', 10, INVALID],
  ['bytes=0-99999999999999999999', 10, INVALID], // beyond int64: strconv.ParseInt fails
  ['items=0-1', 10, INVALID],

  ['bytes=0-9', 10, [[0, 10]]],
  ['BYTES=0-9', 10, [[0, 10]]], // Go compares the unit case-insensitively
  ['bytes=0-', 10, [[0, 10]]],
  ['bytes=5-', 10, [[5, 10]]],
  ['bytes=0-20', 10, [[0, 10]]],
  ['bytes=15-,0-5', 10, [[0, 6]]],
  ['bytes=1-2,5-', 10, [[1, 3], [5, 10]]],
  ['bytes=-2 , 7-', 11, [[9, 11], [7, 11]]],
  ['bytes=0-0 ,2-2, 7-', 11, [[0, 1], [2, 3], [7, 11]]],
  ['bytes=-5', 10, [[5, 10]]],
  ['bytes=-15', 10, [[0, 10]]],
  ['bytes=-0', 10, [[10, 10]]], // Go keeps a zero-length suffix range
  ['bytes=0-499', 10000, [[0, 500]]],
  ['bytes=500-999', 10000, [[500, 1000]]],
  ['bytes=-500', 10000, [[9500, 10000]]],
  ['bytes=9500-', 10000, [[9500, 10000]]],
  ['bytes=0-0,-1', 10000, [[0, 1], [9999, 10000]]],
  ['bytes=500-600,601-999', 10000, [[500, 601], [601, 1000]]],
  ['bytes=500-700,601-999', 10000, [[500, 701], [601, 1000]]],
  ['bytes=+3-+4', 10, [[3, 5]]], // strconv.ParseInt accepts a plus sign
  ['bytes=10-,20-', 10, NO_OVERLAP],
  ['bytes=5-99999999999999999', 10, [[5, 10]]],
  // Apache laxity:
  ['bytes=   1 -2   ,  4- 5, 7 - 8 , ,,', 11, [[1, 3], [4, 6], [7, 9]]],
];

describe('parseRange (Go parseRange)', () => {
  it.each(rangeCases)('%j over %i bytes', (header, size, want) => {
    const got = parseRange(header, size);
    if (typeof want === 'string') {
      expect(got).toEqual({ ok: false, error: want });
    } else {
      expect(got).toEqual({ ok: true, ranges: want.map(([start, end]) => ({ offset: start, length: end - start })) });
    }
  });
});

// ---------------------------------------------------------------------------------------------------------
// HTTP dates and ETags
// ---------------------------------------------------------------------------------------------------------

describe('HTTP dates (Go http.TimeFormat / http.ParseTime)', () => {
  const t = Date.UTC(1994, 10, 6, 8, 49, 37);

  it('formats IMF-fixdate in GMT, truncated to the second', () => {
    expect(formatHttpDate(t + 999)).toBe('Sun, 06 Nov 1994 08:49:37 GMT');
  });

  it.each([
    ['Sun, 06 Nov 1994 08:49:37 GMT', t],
    ['Sunday, 06-Nov-94 08:49:37 GMT', t],
    ['Sun Nov  6 08:49:37 1994', t],
    ['Sun Nov 6 08:49:37 1994', t],
    ['Sun Nov 06 08:49:37 1994', t],
    ['sun, 06 nov 1994 08:49:37 GMT', t],
    ['Sun, 06 Nov 1994 8:49:37 GMT', t],
    ['Sun, 06 Nov 1994 08:49:37.25 GMT', t + 250],
    ['Thursday, 01-Jan-70 00:00:01 UTC', 1000],
    ['Wednesday, 31-Dec-68 00:00:00 GMT', Date.UTC(2068, 11, 31)],
    ['Sunday, 06-Nov-94 08:49:37 GMT+1', t - 3_600_000],
    ['Tue, 29 Feb 2000 00:00:00 GMT', Date.UTC(2000, 1, 29)],
  ])('parses %j', (text, ms) => {
    expect(parseHttpDate(text)).toBe(ms);
  });

  it.each([
    '',
    'yesterday',
    'Sun, 06 Nov 1994 08:49:37 UTC', // IMF-fixdate takes the literal GMT
    'Sun, 6 Nov 1994 08:49:37 GMT', // two-digit day
    'Sun, 06 Nov 94 08:49:37 GMT',
    'Sun, 06 Nov 1994 24:00:00 GMT',
    'Sun, 06 Nov 1994 08:60:00 GMT',
    'Sun, 06 Foo 1994 08:49:37 GMT',
    'Xyz, 06 Nov 1994 08:49:37 GMT',
    'Mon, 29 Feb 1900 00:00:00 GMT', // not a leap year
    'Sun, 31 Apr 1994 00:00:00 GMT',
    'Sun, 06 Nov 1994 08:49:37 GMT trailing',
  ])('rejects %j', (text) => {
    expect(parseHttpDate(text)).toBeUndefined();
  });
});

describe('scanETag (Go scanETag)', () => {
  it.each([
    ['"abc"', '"abc"', ''],
    ['W/"abc", "x"', 'W/"abc"', ', "x"'],
    ['  "a"  ', '"a"', ''],
  ])('%j', (input, etag, rest) => {
    expect(scanETag(input)).toEqual({ etag, rest });
  });

  it.each(['abc', '"abc', '"a b"', 'W/abc', '"'])('rejects %j', (input) => {
    expect(scanETag(input)).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------------------
// serveContent over an in-memory content
// ---------------------------------------------------------------------------------------------------------

const CONTENT = new TextEncoder().encode('0123456789abcdefghij'); // 20 bytes
const MODTIME = Date.UTC(2024, 0, 2, 3, 4, 5) + 678; // sub-second part on purpose
const LAST_MODIFIED = 'Tue, 02 Jan 2024 03:04:05 GMT';
const ETAG = '"v1"';

function source(bytes: Uint8Array) {
  const opened: ByteSpan[] = [];
  const open = vi.fn(async (range: ByteSpan, _read?: ReadStreamOptions) => {
    opened.push(range);
    const slice = bytes.slice(range.offset, range.offset + range.length);
    return new ReadableStream<Uint8Array>({
      start(controller) {
        // Two chunks, to exercise chunk handling.
        const half = Math.floor(slice.length / 2);
        if (half > 0) controller.enqueue(slice.slice(0, half));
        controller.enqueue(slice.slice(half));
        controller.close();
      },
    });
  });
  return { open, opened };
}

function serve(headers: Record<string, string> = {}, overrides: Partial<ServeContentOptions> = {}, method = 'GET') {
  const src = source(CONTENT);
  const contentType = vi.fn(() => 'text/plain; charset=utf-8');
  const response = serveContent(new Request('http://x/f', { method, headers }), {
    size: CONTENT.length,
    modtime: MODTIME,
    etag: ETAG,
    contentType,
    open: src.open,
    headers: { 'x-content-type-options': 'nosniff' },
    ...overrides,
  });
  return { response, opened: src.opened, contentType };
}

const text = async (response: Response) => new TextDecoder().decode(await response.arrayBuffer());

describe('serveContent: full content', () => {
  it('200 with validators, type, length and Accept-Ranges; the whole content', async () => {
    const { response, opened } = serve();
    const res = await response;
    expect(res.status).toBe(200);
    expect(Object.fromEntries(res.headers)).toEqual({
      'accept-ranges': 'bytes',
      'content-length': '20',
      'content-type': 'text/plain; charset=utf-8',
      etag: ETAG,
      'last-modified': LAST_MODIFIED,
      'x-content-type-options': 'nosniff',
    });
    expect(await text(res)).toBe('0123456789abcdefghij');
    expect(opened).toEqual([{ offset: 0, length: 20 }]);
  });

  it('HEAD: the same headers, no body, nothing opened', async () => {
    const { response, opened } = serve({}, {}, 'HEAD');
    const res = await response;
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe('20');
    expect(res.headers.get('etag')).toBe(ETAG);
    expect(res.body).toBeNull();
    expect(opened).toEqual([]);
  });

  it('omits Last-Modified when the modification time is unknown (0) and ignores If-Modified-Since then', async () => {
    const { response } = serve({ 'if-modified-since': LAST_MODIFIED }, { modtime: 0 });
    const res = await response;
    expect(res.status).toBe(200);
    expect(res.headers.has('last-modified')).toBe(false);
  });

  it('an empty content is 200 with Content-Length 0 and opens nothing', async () => {
    const src = source(new Uint8Array());
    const res = await serveContent(new Request('http://x/f'), {
      size: 0,
      modtime: MODTIME,
      contentType: 'text/plain; charset=utf-8',
      open: src.open,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe('0');
    expect(await text(res)).toBe('');
    expect(src.opened).toEqual([]);
  });
});

describe('serveContent: byte ranges', () => {
  it('a single range is 206 with Content-Range and only those bytes', async () => {
    const { response, opened } = serve({ range: 'bytes=2-5' });
    const res = await response;
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe('bytes 2-5/20');
    expect(res.headers.get('content-length')).toBe('4');
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(await text(res)).toBe('2345');
    expect(opened).toEqual([{ offset: 2, length: 4 }]);
  });

  it.each([
    ['bytes=-3', 'bytes 17-19/20', 'hij'],
    ['bytes=15-', 'bytes 15-19/20', 'fghij'],
    ['bytes=18-100', 'bytes 18-19/20', 'ij'],
    ['bytes=-100', 'bytes 0-19/20', '0123456789abcdefghij'],
    ['bytes=50-, 3-3', 'bytes 3-3/20', '3'],
  ])('%s → %s', async (range, contentRange, body) => {
    const res = await serve({ range }).response;
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(contentRange);
    expect(res.headers.get('content-length')).toBe(String(body.length));
    expect(await text(res)).toBe(body);
  });

  it('bytes=-0 is a zero-length 206, as in Go', async () => {
    const { response, opened } = serve({ range: 'bytes=-0' });
    const res = await response;
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe('bytes 20-19/20');
    expect(res.headers.get('content-length')).toBe('0');
    expect(await text(res)).toBe('');
    expect(opened).toEqual([]);
  });

  it('several ranges are a multipart/byteranges body, in request order, with an exact Content-Length', async () => {
    const { response, opened } = serve({ range: 'bytes=10-12, 0-1,-2' });
    const res = await response;
    expect(res.status).toBe(206);
    const type = res.headers.get('content-type')!;
    const boundary = /^multipart\/byteranges; boundary=([0-9a-f]{60})$/.exec(type)?.[1];
    expect(boundary).toBeDefined();
    expect(res.headers.has('content-range')).toBe(false);
    const body = await text(res);
    expect(body).toBe(
      `--${boundary}\r\nContent-Range: bytes 10-12/20\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nabc` +
        `\r\n--${boundary}\r\nContent-Range: bytes 0-1/20\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n01` +
        `\r\n--${boundary}\r\nContent-Range: bytes 18-19/20\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nij` +
        `\r\n--${boundary}--\r\n`,
    );
    expect(res.headers.get('content-length')).toBe(String(new TextEncoder().encode(body).length));
    expect(opened).toEqual([
      { offset: 10, length: 3 },
      { offset: 0, length: 2 },
      { offset: 18, length: 2 },
    ]);
  });

  it('overlapping ranges are not coalesced while their sum fits the content', async () => {
    const res = await serve({ range: 'bytes=0-3,2-5' }).response;
    expect(res.status).toBe(206);
    const body = await text(res);
    expect(body).toContain('Content-Range: bytes 0-3/20\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n0123\r\n');
    expect(body).toContain('Content-Range: bytes 2-5/20\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n2345\r\n');
  });

  it('ranges summing to more than the content are ignored: 200 with everything', async () => {
    const res = await serve({ range: 'bytes=0-15,5-19' }).response;
    expect(res.status).toBe(200);
    expect(res.headers.has('content-range')).toBe(false);
    expect(await text(res)).toBe('0123456789abcdefghij');
  });

  it('multipart HEAD announces the exact length without reading', async () => {
    const { response, opened } = serve({ range: 'bytes=0-0,5-6' }, {}, 'HEAD');
    const res = await response;
    const boundary = res.headers.get('content-type')!.split('boundary=')[1]!;
    const layout = multipartLayout(
      [
        { offset: 0, length: 1 },
        { offset: 5, length: 2 },
      ],
      'text/plain; charset=utf-8',
      20,
      boundary,
    );
    expect(res.headers.get('content-length')).toBe(String(layout.length));
    expect(res.body).toBeNull();
    expect(opened).toEqual([]);
  });

  it('unsatisfiable ranges are 416 with Content-Range bytes */size and no validators (Go serveError)', async () => {
    const res = await serve({ range: 'bytes=20-30' }).response;
    expect(res.status).toBe(416);
    expect(Object.fromEntries(res.headers)).toEqual({
      'content-range': 'bytes */20',
      'content-type': 'text/plain; charset=utf-8',
      'x-content-type-options': 'nosniff',
    });
    expect(await text(res)).toBe('invalid range: failed to overlap\n');
  });

  it('a malformed range is 416 without Content-Range', async () => {
    const res = await serve({ range: 'bytes=5-2' }).response;
    expect(res.status).toBe(416);
    expect(res.headers.has('content-range')).toBe(false);
    expect(await text(res)).toBe('invalid range\n');
  });

  it('renderError shapes the error body; HEAD drops it', async () => {
    const renderError = (status: number, message: string) =>
      Response.json({ error: message }, { status, headers: { 'content-type': 'application/json; charset=utf-8' } });
    const get = await serve({ range: 'bytes=99-' }, { renderError }).response;
    expect(get.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(get.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await get.json()).toEqual({ error: 'invalid range: failed to overlap' });
    const head = await serve({ range: 'bytes=99-' }, { renderError }, 'HEAD').response;
    expect(head.status).toBe(416);
    expect(head.body).toBeNull();
  });

  it('an empty content ignores an unsatisfiable range (200, not 416)', async () => {
    const res = await serveContent(new Request('http://x/f', { headers: { range: 'bytes=0-10' } }), {
      size: 0,
      modtime: MODTIME,
      contentType: 'text/plain; charset=utf-8',
      open: source(new Uint8Array()).open,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe('0');
  });

  it('an empty content with a suffix range is Go’s zero-length 206', async () => {
    const res = await serveContent(new Request('http://x/f', { headers: { range: 'bytes=-5' } }), {
      size: 0,
      modtime: MODTIME,
      contentType: 'text/plain; charset=utf-8',
      open: source(new Uint8Array()).open,
    });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe('bytes 0--1/0');
  });
});

describe('serveContent: preconditions (Go checkPreconditions)', () => {
  it('If-Match that does not match is 412; validators are kept, the type is never computed', async () => {
    const { response, contentType, opened } = serve({ 'if-match': '"other"' });
    const res = await response;
    expect(res.status).toBe(412);
    expect(res.headers.get('etag')).toBe(ETAG);
    expect(res.headers.get('last-modified')).toBe(LAST_MODIFIED);
    expect(await text(res)).toBe('precondition failed\n');
    expect(contentType).not.toHaveBeenCalled();
    expect(opened).toEqual([]);
  });

  it.each([
    ['*', 200],
    ['"v1"', 200],
    ['"x", "v1"', 200],
    ['W/"v1"', 412], // If-Match compares strongly
    ['garbage', 412],
  ])('If-Match %s → %i', async (value, status) => {
    expect((await serve({ 'if-match': value }).response).status).toBe(status);
  });

  it('If-Unmodified-Since: earlier than the modtime is 412; equal (to the second) passes', async () => {
    expect((await serve({ 'if-unmodified-since': 'Tue, 02 Jan 2024 03:04:04 GMT' }).response).status).toBe(412);
    expect((await serve({ 'if-unmodified-since': LAST_MODIFIED }).response).status).toBe(200);
    expect((await serve({ 'if-unmodified-since': 'not a date' }).response).status).toBe(200);
  });

  it('a matching If-Match takes precedence over If-Unmodified-Since', async () => {
    const res = await serve({ 'if-match': ETAG, 'if-unmodified-since': 'Mon, 01 Jan 2024 00:00:00 GMT' }).response;
    expect(res.status).toBe(200);
  });

  it('If-None-Match that matches is 304 without type, length or Last-Modified (an ETag is set)', async () => {
    const { response, contentType } = serve({ 'if-none-match': ETAG });
    const res = await response;
    expect(res.status).toBe(304);
    expect(Object.fromEntries(res.headers)).toEqual({ etag: ETAG, 'x-content-type-options': 'nosniff' });
    expect(res.body).toBeNull();
    expect(contentType).not.toHaveBeenCalled();
  });

  it.each([
    ['W/"v1"', 304], // weak comparison
    ['"a", "v1"', 304],
    ['*', 304],
    ['"a"', 200],
  ])('If-None-Match %s → %i', async (value, status) => {
    expect((await serve({ 'if-none-match': value }).response).status).toBe(status);
  });

  it('If-None-Match on other methods is 412', async () => {
    expect((await serve({ 'if-none-match': ETAG }, {}, 'POST').response).status).toBe(412);
  });

  it('If-Modified-Since at or after the (second-truncated) modtime is 304, before it is 200', async () => {
    expect((await serve({ 'if-modified-since': LAST_MODIFIED }).response).status).toBe(304);
    expect((await serve({ 'if-modified-since': 'Wed, 03 Jan 2024 00:00:00 GMT' }).response).status).toBe(304);
    expect((await serve({ 'if-modified-since': 'Tue, 02 Jan 2024 03:04:04 GMT' }).response).status).toBe(200);
    expect((await serve({ 'if-modified-since': 'garbage' }).response).status).toBe(200);
  });

  it('If-Modified-Since is ignored when If-None-Match is present', async () => {
    const res = await serve({ 'if-none-match': '"other"', 'if-modified-since': LAST_MODIFIED }).response;
    expect(res.status).toBe(200);
  });

  it('a 304 without an ETag keeps Last-Modified', async () => {
    const res = await serve({ 'if-modified-since': LAST_MODIFIED }, { etag: undefined }).response;
    expect(res.status).toBe(304);
    expect(res.headers.get('last-modified')).toBe(LAST_MODIFIED);
    expect(res.headers.has('etag')).toBe(false);
  });

  it('If-Range with the current strong ETag or date honours Range', async () => {
    for (const ifRange of [ETAG, LAST_MODIFIED]) {
      const res = await serve({ range: 'bytes=0-1', 'if-range': ifRange }).response;
      expect(res.status).toBe(206);
      expect(await text(res)).toBe('01');
    }
  });

  it.each(['"old"', 'W/"v1"', 'Tue, 02 Jan 2024 03:04:06 GMT', 'garbage'])(
    'If-Range %s does not match: Range is ignored, 200 with everything',
    async (ifRange) => {
      const res = await serve({ range: 'bytes=0-1', 'if-range': ifRange }).response;
      expect(res.status).toBe(200);
      expect(await text(res)).toBe('0123456789abcdefghij');
    },
  );

  it('a failed If-Range also skips validating the Range header (no 416)', async () => {
    const res = await serve({ range: 'bytes=99-', 'if-range': '"old"' }).response;
    expect(res.status).toBe(200);
  });
});

describe('serveContent: streaming', () => {
  it('multipart opens parts lazily: an unread body has opened only the first part', async () => {
    const { response, opened } = serve({ range: 'bytes=0-0,5-5,10-10' });
    const res = await response;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(opened).toEqual([{ offset: 0, length: 1 }]); // opened up front, so a read error is a status
    await res.arrayBuffer();
    expect(opened).toHaveLength(3);
  });

  it('a part that comes up short errors the body instead of sending a wrong length', async () => {
    const short = async () =>
      new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new Uint8Array([0x41]));
          c.close();
        },
      });
    const res = await serveContent(new Request('http://x/f', { headers: { range: 'bytes=0-3,6-9' } }), {
      size: 20,
      modtime: MODTIME,
      contentType: 'application/octet-stream',
      open: short,
    });
    await expect(res.arrayBuffer()).rejects.toThrow();
  });

  it('asks every open for large reads (SERVE_READ: 1 MiB chunks), whole content, one range or many', async () => {
    const src = source(CONTENT);
    const serveWith = (range?: string) =>
      serveContent(new Request('http://x/f', { headers: range ? { range } : {} }), {
        size: CONTENT.length,
        modtime: MODTIME,
        contentType: 'text/plain',
        open: src.open,
      }).then((res) => res.arrayBuffer());
    await serveWith();
    await serveWith('bytes=1-2');
    await serveWith('bytes=0-0,3-4');
    expect(SERVE_READ).toEqual({ chunkBytes: 1024 * 1024 });
    expect(src.open.mock.calls.map((call) => call[1])).toEqual([SERVE_READ, SERVE_READ, SERVE_READ, SERVE_READ]);
  });

  it('an open failure before the response is thrown to the caller', async () => {
    const failing = async () => {
      throw new Error('gone');
    };
    await expect(
      serveContent(new Request('http://x/f'), { size: 5, modtime: MODTIME, contentType: 'x/y', open: failing }),
    ).rejects.toThrow('gone');
  });
});
