import { describe, expect, it } from 'vitest';
import { MAX_HITS_PER_FILE } from '../../../../core/search/answer.ts';
import { createProseIndex, type ProseIndex } from '../../../../core/search/prose/prose-index.ts';

function indexOf(files: Record<string, string>, options?: Parameters<typeof createProseIndex>[0]): ProseIndex {
  const index = createProseIndex(options);
  for (const [path, text] of Object.entries(files)) index.add({ path, version: '1', text });
  return index;
}

const ranked = (index: ProseIndex, query: string, limit = 10) => index.search(query, { limit }).map((r) => r.path);

describe('BM25 scores', () => {
  // N = 2, average length 3. "cherry": df 1, idf ln 2; "apple": df 2, idf ln 1.2.
  const index = indexOf({ 'a.txt': 'apple banana', 'b.txt': 'apple apple cherry cherry' });

  it('are Okapi BM25 with k1 1.2, b 0.75 and Lucene IDF, normalized by the ceiling Σ idf·(k1+1)', () => {
    // b.txt: tf 2, length 4 → k1·(1 − b + b·4/3) = 1.5; score ln2 · 2·2.2 / (2 + 1.5).
    const [cherry] = index.search('cherry', { limit: 10 });
    expect(cherry!.path).toBe('b.txt');
    expect(cherry!.score).toBeCloseTo((Math.LN2 * 4.4) / 3.5, 12);
    expect(cherry!.normalized).toBeCloseTo(2 / 3.5, 12);

    // a.txt: tf 1, length 2 → 0.9, score ln1.2 · 2.2 / 1.9; b.txt ln1.2 · 4.4 / 3.5 is higher.
    const apple = index.search('apple', { limit: 10 });
    expect(apple.map((r) => [r.path, r.score])).toEqual([
      ['b.txt', (Math.log(1.2) * 4.4) / 3.5],
      ['a.txt', (Math.log(1.2) * 2.2) / 1.9],
    ]);
  });

  it('sum over the distinct query terms: a term asked twice counts once, unknown and stop words add nothing', () => {
    const both = index.search('cherry apple', { limit: 10 })[0]!;
    const again = index.search('the cherry, cherry and APPLE zebra', { limit: 10 })[0]!;
    expect(both.score).toBeCloseTo((Math.LN2 * 4.4) / 3.5 + (Math.log(1.2) * 4.4) / 3.5, 12);
    expect(again.score).toBe(both.score);
    expect(index.search('the of and', { limit: 10 })).toEqual([]);
    expect(index.search('zebra', { limit: 10 })).toEqual([]);
  });
});

describe('ranking', () => {
  const files = {
    'docs/irq-domains.md':
      '# IRQ domains\n\nAn interrupt domain maps hardware interrupt numbers to Linux irqs.\nEach interrupt controller allocates its domain.\n',
    'kernel/irq/irqdomain.c':
      'struct irq_domain *irq_domain_alloc(struct fwnode_handle *fwnode)\n{\n\treturn __irq_domain_alloc(fwnode);\n}\n',
    'drivers/usb/core/hub.c': 'static int usb_reset_device(struct usb_device *udev)\n{\n\t/* reset the hub port */\n}\n',
    'docs/usb.md': '# USB\n\nResetting a USB device re-runs its enumeration.\n',
    'README.md': 'A kernel. It boots.\n',
  };
  const index = indexOf(files);

  it('puts the files about the query first, code and docs alike, and leaves out files without a term', () => {
    expect(ranked(index, 'how are interrupt domains allocated')).toEqual(['docs/irq-domains.md']);
    expect(ranked(index, 'irq domain alloc')).toEqual(['kernel/irq/irqdomain.c', 'docs/irq-domains.md']);
    expect(ranked(index, 'usb device reset')).toEqual(['drivers/usb/core/hub.c', 'docs/usb.md']);
  });

  it('meets identifiers from prose and prose from identifiers', () => {
    expect(ranked(index, 'resetDevice')).toEqual(['drivers/usb/core/hub.c', 'docs/usb.md']);
    expect(ranked(index, 'hardware_interrupt')).toEqual(['docs/irq-domains.md']);
  });

  it('honours limit and filter, ranking only the files the filter keeps', () => {
    expect(ranked(index, 'irq domain alloc', 1)).toEqual(['kernel/irq/irqdomain.c']);
    const onlyDocs = index.search('irq domain alloc', { limit: 10, filter: (path) => path.startsWith('docs/') });
    expect(onlyDocs.map((r) => r.path)).toEqual(['docs/irq-domains.md']);
    expect(index.search('irq', { limit: 0 })).toEqual([]);
  });

  it('breaks ties by path in code-unit order', () => {
    const twins = indexOf({ 'b.txt': 'same words', 'B.txt': 'same words', 'a.txt': 'same words', 'z.txt': 'other' });
    expect(ranked(twins, 'same')).toEqual(['B.txt', 'a.txt', 'b.txt']);
  });
});

describe('best lines', () => {
  it('are the lines with the most distinct query terms, ties earlier, in line order, with their IDF share', () => {
    const index = indexOf({
      'a.md': 'alpha\nbeta gamma\nnothing here\nalpha beta\nbeta\r\nalpha alpha alpha\n',
      'other.md': 'filler words only\nand more filler\n',
    });
    const [result] = index.search('alpha beta', { limit: 1 });
    // Lines 2, 4 (both terms) …, then one-term lines 1, 2, 5, 6: all kept (≤ 50), in line order.
    expect(result!.lines.map((l) => [l.line, l.text])).toEqual([
      [1, 'alpha'],
      [2, 'beta gamma'],
      [4, 'alpha beta'],
      [5, 'beta'],
      [6, 'alpha alpha alpha'],
    ]);
    // Both terms have df 1: each carries half the weight.
    expect(result!.lines.map((l) => l.score)).toEqual([0.5, 0.5, 1, 0.5, 0.5]);
    expect(result!.capped).toBeUndefined();
  });

  it(`keep at most ${MAX_HITS_PER_FILE}: the two-term lines first, then the earliest, and say the file was capped`, () => {
    const lines = Array.from({ length: 60 }, (_, i) => (i % 20 === 19 ? 'alpha beta' : 'alpha'));
    const [result] = indexOf({ 'f.txt': lines.join('\n'), 'g.txt': 'zzz' }).search('alpha beta', { limit: 1 });
    // Lines 20, 40, 60 hold both terms; then the 47 earliest one-term lines: 1–49 without 20 and 40.
    expect(result!.lines.map((l) => l.line)).toEqual([...Array.from({ length: 49 }, (_, i) => i + 1), 60]);
    expect(result!.lines).toHaveLength(MAX_HITS_PER_FILE);
    expect(result!.capped).toBe(true);
  });

  it('show the line as in the file, cut at its end to 200 code units, never inside a surrogate pair', () => {
    const long = `${'x'.repeat(190)} needle ${'y'.repeat(50)}`;
    const emoji = `${'e'.repeat(199)}😀 needle`;
    const [result] = indexOf({ 'f.txt': `  indented needle\t\n${long}\n${emoji}`, 'g.txt': 'zzz' }).search('needle', { limit: 1 });
    expect(result!.lines.map((l) => l.text)).toEqual(['  indented needle\t', long.slice(0, 200), 'e'.repeat(199)]);
  });

  it('find a term wherever lower-casing changes the length of the text', () => {
    const [result] = indexOf({ 'f.txt': 'İstanbul first\nthen needle here\nneedle', 'g.txt': 'zzz' }).search('needle', { limit: 1 });
    expect(result!.lines.map((l) => l.line)).toEqual([2, 3]);
  });
});

describe('incremental upkeep', () => {
  it('adds, replaces and removes documents, and knows which version it holds', () => {
    const index = indexOf({ 'a.txt': 'alpha', 'b.txt': 'beta' });
    expect(index.has('a.txt', '1')).toBe(true);
    expect(index.has('a.txt', '2')).toBe(false);
    expect(index.has('c.txt', '1')).toBe(false);

    index.add({ path: 'a.txt', version: '2', text: 'gamma' });
    expect(index.has('a.txt', '2')).toBe(true);
    expect(ranked(index, 'alpha')).toEqual([]);
    expect(ranked(index, 'gamma')).toEqual(['a.txt']);
    expect(index.stats()).toMatchObject({ docs: 2, tokens: 2 });

    index.remove('b.txt');
    index.remove('never-added.txt');
    expect(ranked(index, 'beta')).toEqual([]);
    expect(index.has('b.txt', '1')).toBe(false);
    expect(index.stats()).toMatchObject({ docs: 1, tokens: 1 });
  });

  it('counts df and the average length over live documents only', () => {
    const index = indexOf({ 'a.txt': 'apple banana', 'b.txt': 'apple apple cherry cherry', 'gone.txt': 'cherry words words words words' });
    index.remove('gone.txt');
    const fresh = indexOf({ 'a.txt': 'apple banana', 'b.txt': 'apple apple cherry cherry' });
    expect(index.search('cherry apple', { limit: 10 })).toEqual(fresh.search('cherry apple', { limit: 10 }));
  });

  it('stays correct across compactions after heavy churn, and drops terms no document holds', () => {
    const index = createProseIndex();
    // Letters only: the tokenizer splits digits from letters.
    const name = (n: number) => [...n.toString(26)].map((d) => String.fromCharCode(97 + parseInt(d, 26))).join('');
    const words = (i: number) => Array.from({ length: 40 }, (_, w) => `w${name(i)}x${name(w)} shared`).join(' ');
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 100; i++) index.add({ path: `f${i}.txt`, version: `${round}`, text: `${words(round * 1000 + i)} round${name(round)}` });
    }
    expect(index.stats()).toMatchObject({ docs: 100 });
    expect(index.stats().terms).toBeLessThan(100 * 40 * 3);
    expect(ranked(index, 'roundf', 200)).toHaveLength(100);
    expect(ranked(index, 'rounda roundb roundc roundd rounde')).toEqual([]);
    expect(ranked(index, `w${name(5042)}x${name(7)}`)).toEqual(['f42.txt']);
    const fresh = createProseIndex();
    for (let i = 0; i < 100; i++) fresh.add({ path: `f${i}.txt`, version: '5', text: `${words(5000 + i)} roundf` });
    expect(index.search(`shared roundf w${name(5042)}x${name(7)}`, { limit: 5 })).toEqual(fresh.search(`shared roundf w${name(5042)}x${name(7)}`, { limit: 5 }));
  });
});

describe('memory caps', () => {
  it('refuse documents past maxDocs, report them, and take them once there is room and they change', () => {
    const index = indexOf({ 'a.txt': 'alpha', 'b.txt': 'beta', 'c.txt': 'gamma' }, { maxDocs: 2 });
    expect(index.stats()).toMatchObject({ docs: 2, refused: 1 });
    expect(ranked(index, 'gamma')).toEqual([]);
    // Refused at this version counts as current, so the engine does not re-read it on every pass.
    expect(index.has('c.txt', '1')).toBe(true);
    index.remove('a.txt');
    index.add({ path: 'c.txt', version: '2', text: 'gamma' });
    expect(ranked(index, 'gamma')).toEqual(['c.txt']);
    expect(index.stats()).toMatchObject({ docs: 2, refused: 0 });
  });

  it('refuse a document that would take approxBytes past maxBytes', () => {
    const probe = indexOf({ 'a.txt': 'alpha beta' });
    const cap = probe.stats().approxBytes + 100;
    const index = indexOf({ 'a.txt': 'alpha beta', 'big.txt': 'word '.repeat(10).split(' ').map((w, i) => `${w}${i}`).join(' ').repeat(50) }, { maxBytes: cap });
    expect(index.stats()).toMatchObject({ docs: 1, refused: 1 });
    expect(index.stats().approxBytes).toBeLessThanOrEqual(cap);
    expect(ranked(index, 'word1')).toEqual([]);
  });

  it('index a document without its text past maxTextBytes: lines come from linesOf', () => {
    const index = indexOf({ 'a.txt': 'needle one', 'b.txt': 'x\nneedle two' }, { maxTextBytes: 12 });
    const results = index.search('needle', { limit: 10 });
    expect(results).toEqual([
      { path: 'a.txt', score: results[0]!.score, normalized: results[0]!.normalized, lines: [{ line: 1, text: 'needle one', score: 1 }] },
      { path: 'b.txt', score: results[1]!.score, normalized: results[1]!.normalized, lines: [], textless: true },
    ]);
    expect(index.linesOf('needle', 'x\nneedle two')).toEqual({ lines: [{ line: 2, text: 'needle two', score: 1 }], capped: false });
  });
});
