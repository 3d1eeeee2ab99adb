import { describe, expect, it } from 'vitest';
import { detectContentType, SNIFF_LEN } from '../../../runtime/http/sniff.ts';

/** Bytes from a string of `\xNN` escapes and ASCII (every char code is one byte). */
const b = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));

// Go's net/http sniff_test.go table, plus the cases that pin ordering and edges.
const cases: Array<[string, Uint8Array, string]> = [
  ['empty', b(''), 'text/plain; charset=utf-8'],
  ['binary', b('\x01\x02\x03'), 'application/octet-stream'],

  ['HTML document #1', b('<HtMl><bOdY>blah blah blah</body></html>'), 'text/html; charset=utf-8'],
  ['HTML document #2', b('<HTML></HTML>'), 'text/html; charset=utf-8'],
  ['HTML with leading whitespace', b('   <!DOCTYPE HTML>...'), 'text/html; charset=utf-8'],
  ['HTML with leading CRLF', b('\r\n<html>...'), 'text/html; charset=utf-8'],
  ['HTML comment', b('<!-- x -->'), 'text/html; charset=utf-8'],
  ['<p> followed by space', b('<p class="x">hi</p>'), 'text/html; charset=utf-8'],
  ['<a> tag', b('<a href="/">'), 'text/html; charset=utf-8'],
  ['tag prefix without terminator is not HTML', b('<abbr>x</abbr>'), 'text/plain; charset=utf-8'],
  ['<br/> is not an HTML signature', b('<br/>'), 'text/plain; charset=utf-8'],
  ['HTML signature needs a byte after the tag', b('<html'), 'text/plain; charset=utf-8'],

  ['plain text', b('This is not HTML. It has \xE2\x98\x83 though.'), 'text/plain; charset=utf-8'],
  ['XML (whitespace skipped)', b('\n<?xml!'), 'text/xml; charset=utf-8'],
  ['PDF', b('%PDF-1.7\n'), 'application/pdf'],
  ['PDF must start at byte 0', b(' %PDF-1.7'), 'text/plain; charset=utf-8'],
  ['PostScript', b('%!PS-Adobe-3.0'), 'application/postscript'],

  ['UTF-16BE BOM', b('\xFE\xFF\x00h'), 'text/plain; charset=utf-16be'],
  ['UTF-16LE BOM', b('\xFF\xFEh\x00'), 'text/plain; charset=utf-16le'],
  ['UTF-8 BOM', b('\xEF\xBB\xBFhello'), 'text/plain; charset=utf-8'],

  ['Windows icon', b('\x00\x00\x01\x00'), 'image/x-icon'],
  ['Windows cursor', b('\x00\x00\x02\x00'), 'image/x-icon'],
  ['BMP image', b('BM...'), 'image/bmp'],
  ['GIF 87a', b('GIF87a'), 'image/gif'],
  ['GIF 89a', b('GIF89a...'), 'image/gif'],
  ['WEBP image', b('RIFF\x00\x00\x00\x00WEBPVP'), 'image/webp'],
  ['PNG image', b('\x89PNG\x0D\x0A\x1A\x0A'), 'image/png'],
  ['JPEG image', b('\xFF\xD8\xFF'), 'image/jpeg'],

  ['MIDI audio', b('MThd\x00\x00\x00\x06\x00\x01'), 'audio/midi'],
  ['MP3 audio (ID3)', b('ID3\x03\x00\x00\x00\x00\x0f'), 'audio/mpeg'],
  ['WAV audio #1', b('RIFFb\xb8\x00\x00WAVEfmt \x12\x00\x00\x00\x06'), 'audio/wave'],
  ['WAV audio #2', b('RIFF,\x00\x00\x00WAVEfmt \x12\x00\x00\x00\x06'), 'audio/wave'],
  ['AIFF audio', b('FORM\x00\x00\x00\x00AIFFCOMM\x00\x00\x00\x12\x00\x01\x00\x00\x57\x55\x00\x10\x40\x0d\xf3\x34'), 'audio/aiff'],
  ['OGG audio', b('OggS\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x7e\x46\x00\x00\x00\x00\x00\x00\x1f\xf6\xb4\xfc\x01\x1e\x01\x76\x6f\x72'), 'application/ogg'],
  ['must not match OGG #1', b('owow\x00'), 'application/octet-stream'],
  ['must not match OGG #2', b('oooS\x00'), 'application/octet-stream'],
  ['must not match OGG #3', b('oggS\x00'), 'application/octet-stream'],

  ['MP4 video', b('\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom<\x06t\xbfmdat'), 'video/mp4'],
  ['MP4 box size not a multiple of 4', b('\x00\x00\x00\x17ftypmp42\x00\x00\x00\x00mp42isom<\x06t\xbfmdat'), 'application/octet-stream'],
  ['AVI video #1', b('RIFF,O\n\x00AVI LIST\xC3\x80'), 'video/avi'],
  ['AVI video #2', b('RIFF,\n\x00\x00AVI LIST\xC3\x80'), 'video/avi'],
  ['WebM video', b('\x1A\x45\xDF\xA3\x01'), 'video/webm'],

  ['EOT font', b('\x00'.repeat(34) + 'LP'), 'application/vnd.ms-fontobject'],
  ['TTF sample I', b('\x00\x01\x00\x00\x00\x17\x01\x00\x00\x04\x01\x60\x4f'), 'font/ttf'],
  ['TTF sample II', b('\x00\x01\x00\x00\x00\x0e\x00\x80\x00\x03\x00\x60\x46'), 'font/ttf'],
  ['OTTO sample', b('\x4f\x54\x54\x4f\x00\x0e\x00\x80\x00\x03\x00\x60\x42\x41\x53\x45'), 'font/otf'],
  ['font collection', b('ttcf\x00\x01\x00\x00'), 'font/collection'],
  ['woff sample', b('\x77\x4f\x46\x46\x00\x01\x00\x00\x00\x00\x30\x54\x00\x0d\x00\x00'), 'font/woff'],
  ['woff2 sample', b('\x77\x4f\x46\x32\x00\x01\x00\x00\x00'), 'font/woff2'],

  ['gzip', b('\x1F\x8B\x08\x00\x00\x00\x00\x00'), 'application/x-gzip'],
  ['zip', b('PK\x03\x04\x14\x00'), 'application/zip'],
  ['RAR v1.5-v4.0', b('Rar!\x1A\x07\x00'), 'application/x-rar-compressed'],
  ['RAR v5+', b('Rar!\x1A\x07\x01\x00'), 'application/x-rar-compressed'],
  ['incorrect RAR v1.5-v4.0', b('Rar \x1A\x07\x00'), 'application/octet-stream'],
  ['incorrect RAR v5+', b('Rar \x1A\x07\x01\x00'), 'application/octet-stream'],
  ['7z is not in Go’s table', b("7z\xBC\xAF\x27\x1C\x00\x04"), 'application/octet-stream'],
  ['wasm', b('\x00\x61\x73\x6d\x01\x00'), 'application/wasm'],

  ['tab, LF, FF, CR and ESC count as text', b('a\tb\nc\x0cd\re\x1bf'), 'text/plain; charset=utf-8'],
  ['a vertical tab is binary', b('a\x0bb'), 'application/octet-stream'],
  ['a NUL byte is binary', b('hello\x00world'), 'application/octet-stream'],
  ['DEL and high bytes are not binary', b('\x7f\xff\xfe'), 'text/plain; charset=utf-8'],
];

describe('detectContentType (Go http.DetectContentType)', () => {
  it.each(cases)('%s', (_name, data, want) => {
    expect(detectContentType(data)).toBe(want);
  });

  it('looks at the first 512 bytes only', () => {
    const data = new Uint8Array(SNIFF_LEN + 10).fill(0x61);
    data[SNIFF_LEN + 1] = 0x00; // a binary byte past the window is not seen
    expect(detectContentType(data)).toBe('text/plain; charset=utf-8');
    data[SNIFF_LEN - 1] = 0x00;
    expect(detectContentType(data)).toBe('application/octet-stream');
  });

  it('HTML signatures come before images: the first match in Go’s order wins', () => {
    expect(detectContentType(b('<!-- GIF89a'))).toBe('text/html; charset=utf-8');
    expect(detectContentType(b('BM<html>'))).toBe('image/bmp');
  });
});
