/**
 * The hostile pieces malformed requests are assembled from (test/support/hardening/malformed-requests.ts): numbers
 * past what a parser should trust, strings that trip decoders and path code, JSON of every type and depth, and
 * header values a lenient parser would misread. Fixed lists where the interesting values are known (1e308, 2^64,
 * `-0`); fast-check's own generators around them for the values nobody thought of.
 */
import fc from 'fast-check';

/** Numbers as JSON values: past safe integers, the float edges, negative zero, fractions. */
export const HOSTILE_NUMBERS: readonly number[] = [
  1e308, -1e308, 2 ** 64, -(2 ** 64), 2 ** 53 + 2, Number.MAX_SAFE_INTEGER, -0, 0, -1, 0.5, 1e-308, 5e-324, 4294967296, 65536,
];

/** Numbers as text (query values, and JSON text JSON.stringify cannot write: `1e309` parses to Infinity). */
export const HOSTILE_NUMBER_TEXTS: readonly string[] = [
  '1e308', '1e309', '-1e309', '18446744073709551616', '-18446744073709551616', '9007199254740993', '-0', '0', '-1',
  'NaN', 'Infinity', '-Infinity', '1.5', '1e3', '0x10', '0b1', '1_000', ' 5', '5 ', '+5', '', '٣', '１', 'null',
  '0'.repeat(400) + '1', '9'.repeat(400),
];

/** Strings that trip decoders, path code and renderers: NUL, lone surrogates, separators, control bytes, length. */
export const HOSTILE_STRINGS: readonly string[] = [
  '', ' ', '\u0000', 'a\u0000b', '\uD800', '\uDFFF\uD800', '\u202Eevil', '\uFEFF', '\r\n', '\t', '\u0085', '%00', '%zz', '%',
  '..', '../..', '../../../etc/passwd', '/etc/passwd', '/', '//', '\\', 'C:\\Windows', 'CON', '*', '?', '[', '{', '$HOME',
  '`id`', '$(id)', '-rf', '--help', '__proto__', 'constructor', 'x'.repeat(300), 'é'.repeat(200), '😀'.repeat(100),
  'x'.repeat(70_000),
];

/** Strings fast-check makes up (whole Unicode), kept short so a case stays readable when it fails. */
export const anyString = fc.string({ unit: 'binary', maxLength: 40 });

export const hostileString: fc.Arbitrary<string> = fc.oneof(fc.constantFrom(...HOSTILE_STRINGS), anyString);

/** Any JSON value that is not what a schema wants: every type, the edge numbers, odd objects. */
export const hostileJsonValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.constantFrom(...HOSTILE_NUMBERS),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  hostileString,
  fc.constant([]),
  fc.constant({}),
  fc.array(fc.oneof(fc.integer(), anyString, fc.constant(null)), { maxLength: 4 }),
  fc.dictionary(anyString, fc.oneof(fc.integer(), anyString), { maxKeys: 3 }),
  fc.constant({ ['__proto__']: { polluted: true } }),
  fc.constant({ toString: 1, valueOf: 'x', constructor: { prototype: null } }),
);

/**
 * JSON text nested `depth` levels deep: arrays (2 bytes a level) or objects (6 bytes a level) around a leaf.
 * 100 000 levels is far past any recursion limit a recursive parser or walker would survive.
 */
export function nestedJson(depth: number, kind: 'array' | 'object', leaf = '1'): string {
  return kind === 'array' ? '['.repeat(depth) + leaf + ']'.repeat(depth) : '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);
}

export const nestedJsonText: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom(100_000, 20_000, 1000), fc.constantFrom('array' as const, 'object' as const))
  // Objects at 100 000 levels are 600 KB, past the body cap these runs use: the arrays carry the depth there.
  .map(([depth, kind]) => nestedJson(kind === 'object' ? Math.min(depth, 20_000) : depth, kind));

/** JSON text that does not parse: cut short, trailing junk, JavaScript that is not JSON, odd whitespace. */
export const BROKEN_JSON_TEXTS: readonly string[] = [
  '', ' ', '{', '}', '{"path":', '{"path":"a"', '{"path":"a",}', "{'path':'a'}", '{path:"a"}', '{"path":NaN}',
  '{"path":Infinity}', '{"path":undefined}', '{"path":"a"}{"path":"b"}', '{"path":"a"} x', '/* c */{}', '{"a":1 // c\n}',
  '\uFEFF{}', '{"path":"\u0001"}', '{"path":"\\ud800"}', '{"path":"\\u12"}', '{"path":"\\x41"}', '[1,2', 'nul', 'tru',
  '-', '01', '1.', '.5', '"unterminated', '{"a":1e}', '{"":""', '\u0000{}',
];

/** Byte sequences that are not UTF-8: lone continuation bytes, overlong forms, cut sequences, surrogates. */
export const INVALID_UTF8: readonly (readonly number[])[] = [
  [0xff], [0xfe, 0xff], [0x80], [0xc0, 0xaf], [0xe0, 0x80, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82],
  [0xf0, 0x9f, 0x98],
];

/** Bytes of `text` with an invalid UTF-8 sequence spliced in at `at` (a fraction of its length). */
export function withInvalidUtf8(text: string, sequence: readonly number[], at: number): Uint8Array {
  const bytes = new TextEncoder().encode(text);
  const cut = Math.floor(bytes.length * at);
  return Uint8Array.from([...bytes.subarray(0, cut), ...sequence, ...bytes.subarray(cut)]);
}

/**
 * Header values that a Fetch `Headers` and node:http both accept (tab, printable ASCII, bytes 0x80–0xFF) but
 * no parser of ranges, entity tags or dates should: fast-check's as well as the known traps.
 */
export const headerSafeString: fc.Arbitrary<string> = fc
  .string({ unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff })).map((c) => String.fromCharCode(c)), maxLength: 40 })
  .map((text) => text.trim());

export const BAD_RANGES: readonly string[] = [
  'bytes=abc', 'bytes=-0', 'bytes=5-1', 'bytes=-', 'bytes=', 'bytes= 0 - 1', 'bytes=1e3-2e3', 'bytes=0x10-0x20', 'items=0-1',
  'bytes=18446744073709551616-', 'bytes=0-18446744073709551616', 'bytes=-18446744073709551616', 'bytes=9007199254740993-',
  'bytes=-9007199254740993', 'bytes=0-0,' + Array.from({ length: 2000 }, (_, i) => `${i}-${i}`).join(','), 'bytes=0--1',
  'bytes=1-2,,3-4', 'bytes=0-1;q=1', 'BYTES=0-1', 'bytes=\u00ff-1',
];

export const BAD_ENTITY_TAGS: readonly string[] = [
  'garbage', '"unterminated', 'W/', 'W/"x"', '*', '*, "a"', '"a", "b", garbage', ', , ,', '""', '"\u00ff"', `"${'x'.repeat(8000)}"`,
  Array.from({ length: 500 }, (_, i) => `"${i}"`).join(', '),
];

export const BAD_DATES: readonly string[] = [
  'yesterday', 'Tue, 31 Feb 2024 00:00:00 GMT', 'Sat, 01 Jan 275760 00:00:00 GMT', 'Mon, 01 Jan -0001 00:00:00 GMT', '0', '-1',
  '99999999999999999999', '1e308', 'Thu, 01 Jan 1970 00:00:00 GMT', 'Sun, 06 Nov 1994 08:49:37', '2024-13-45T99:99:99Z', '',
];

export const BAD_CONTENT_TYPES: readonly string[] = [
  'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=latin1',
  'application/json; charset=utf-16', 'garbage/;;;', 'application/octet-stream', '*/*', 'application/json, text/plain',
  'application/xml',
];
