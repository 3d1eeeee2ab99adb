import { describe, expect, it } from 'vitest';
import { openBounded, requireAllOpened } from '../../bench/hardening/lib/bounded.ts';
import { PathLocks } from '../../bench/hardening/lib/path-locks.ts';
import { afterWarmup, leastSquaresSlope, slopeHolding, slopePerMinute, slopeStandardError } from '../../bench/hardening/lib/slope.ts';
import { escapeXml, niceTicks, renderPlot } from '../../bench/hardening/lib/svg-plot.ts';

describe('slope', () => {
  it('is exact on a line and zero on a constant', () => {
    expect(leastSquaresSlope([[0, 1], [1, 3], [2, 5], [3, 7]])).toBeCloseTo(2, 12);
    expect(leastSquaresSlope([[0, 4], [10, 4], [20, 4]])).toBe(0);
  });

  it('fits the least-squares line through noise and skips non-finite points', () => {
    // y = 0.5x + 1 with symmetric residuals (+1, -1, -1, +1): the fit is the line itself.
    expect(leastSquaresSlope([[0, 2], [1, 0.5], [2, 1], [3, 3.5], [4, Number.NaN]])).toBeCloseTo(0.5, 12);
    expect(leastSquaresSlope([[0, 1], [2, 2], [4, 3], [6, Number.NaN]])).toBeCloseTo(0.5, 12);
  });

  it('is NaN without two distinct x', () => {
    expect(leastSquaresSlope([])).toBeNaN();
    expect(leastSquaresSlope([[1, 1], [1, 2]])).toBeNaN();
  });

  it('drops the warm-up by time, and converts per-second series to per minute', () => {
    const points = Array.from({ length: 11 }, (_, i) => [i * 10, i < 2 ? 100 : 50] as const);
    expect(afterWarmup(points, 0.2).map(([x]) => x)).toEqual([20, 30, 40, 50, 60, 70, 80, 90, 100]);
    expect(slopePerMinute(afterWarmup(points, 0.2))).toBe(0);
    expect(slopePerMinute([[0, 0], [30, 1]])).toBeCloseTo(2, 12);
  });
});

describe('standard error of the slope', () => {
  it('is 0 on a line, and shrinks as the same wander is seen over a longer window', () => {
    expect(slopeStandardError([[0, 1], [1, 3], [2, 5]])).toBe(0);
    const wander = (minutes: number) => Array.from({ length: minutes * 6 + 1 }, (_, i) => [i * 10, 150 + (i % 2 === 0 ? 4 : -4)] as const);
    const ten = slopeStandardError(wander(10)) * 60;
    const thirty = slopeStandardError(wander(30)) * 60;
    // ±4 MiB around a level, sampled every 10 s: 0.177 MiB/min over ten minutes, 0.034 over thirty (≈ n^-3/2).
    expect(ten).toBeCloseTo(0.1774, 4);
    expect(thirty).toBeCloseTo(0.0343, 4);
    expect(slopeStandardError([[0, 1], [1, 2]])).toBeNaN();
  });
});

describe('slope holding a second series constant', () => {
  // RSS-like: a step of 8 whenever z (workers alive) is 1, on a flat base — the step lands late in the run.
  const steps = [0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 1];
  const flat = steps.map((z, i) => [i * 10, 150 + 8 * z, z] as const);

  it('explains a step that follows z, where the plain line tilts', () => {
    expect(leastSquaresSlope(flat.map(([x, y]) => [x, y]))).toBeGreaterThan(0.05);
    expect(slopeHolding(flat)).toBeCloseTo(0, 12);
  });

  it('still sees a growth under the steps', () => {
    const growing = flat.map(([x, y, z]) => [x, y + 0.05 * x, z] as const);
    expect(slopeHolding(growing)).toBeCloseTo(0.05, 12);
  });

  it('is the plain slope where z never moves, and NaN where x and z move together', () => {
    expect(slopeHolding([[0, 1, 5], [1, 3, 5], [2, 5, 5]])).toBeCloseTo(2, 12);
    expect(slopeHolding([[0, 1, 0], [1, 2, 1], [2, 3, 2], [3, 4, 3]])).toBeNaN();
    expect(slopeHolding([[0, 1, 0], [1, 2, 1]])).toBeNaN();
  });
});

interface Element {
  name: string;
  attributes: Record<string, string>;
  children: Element[];
}

/**
 * A strict little XML reader (no dependency): elements, double-quoted attributes, text without a bare `<` or `&`.
 * Throws on anything not well-formed — unbalanced or crossed tags, a stray character in a tag, an unknown entity.
 */
function parseXml(xml: string): Element {
  const root: Element = { name: '#document', attributes: {}, children: [] };
  const stack = [root];
  const token = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/gy;
  const checkText = (text: string) => {
    if (/&(?!(?:lt|gt|amp|quot|apos);)/.test(text)) throw new Error(`bad entity in ${JSON.stringify(text)}`);
  };
  let match: RegExpExecArray | null;
  let at = 0;
  while (at < xml.length && (match = token.exec(xml))) {
    at = token.lastIndex;
    const [, closing, name, attributeText, selfClosing, text] = match;
    if (text !== undefined) {
      checkText(text);
      if (stack.length === 1 && text.trim()) throw new Error('text outside the root');
      continue;
    }
    if (closing) {
      if (stack.pop()!.name !== name) throw new Error(`crossed tag </${name}>`);
      continue;
    }
    const attributes: Record<string, string> = {};
    for (const [, key, value] of attributeText!.matchAll(/([\w:-]+)="([^"]*)"/g)) {
      checkText(value!);
      if (key! in attributes) throw new Error(`attribute ${key} twice`);
      attributes[key!] = value!;
    }
    const element: Element = { name: name!, attributes, children: [] };
    stack[stack.length - 1]!.children.push(element);
    if (!selfClosing) stack.push(element);
  }
  if (at !== xml.length) throw new Error(`not XML at ${at}: ${JSON.stringify(xml.slice(at, at + 40))}`);
  if (stack.length !== 1) throw new Error(`<${stack[stack.length - 1]!.name}> never closed`);
  if (root.children.length !== 1) throw new Error('not exactly one root element');
  return root.children[0]!;
}

describe('svg plot', () => {
  it('picks ticks 1, 2 or 5 × 10^k apart that cover the range', () => {
    expect(niceTicks(0, 100, 5)).toEqual([0, 20, 40, 60, 80, 100]);
    expect(niceTicks(3.2, 7.9, 4)).toEqual([2, 4, 6, 8]);
    const flat = niceTicks(5, 5);
    expect(flat[0]).toBeLessThan(5);
    expect(flat[flat.length - 1]).toBeGreaterThan(5);
  });

  it('writes well-formed XML with one panel per series, each line named, text escaped', () => {
    const svg = renderPlot({
      title: 'RSS & fds <over time>',
      xLabel: 's',
      panels: [
        { title: 'RSS', unit: 'MiB', lines: [{ name: 'RSS', points: [[0, 100], [10, 110], [20, Number.NaN], [30, 105]] }, { name: 'bound', points: [[0, 200], [30, 200]], dashed: true }] },
        { title: 'open fds', unit: 'count', lines: [{ name: 'fds', points: [[0, 31], [30, 40]] }] },
      ],
      marks: [{ name: 'warm-up "end"', x: 6 }],
    });
    const doc = parseXml(svg.replace(/^<\?xml[^>]*>/, ''));
    expect(doc.name).toBe('svg');
    expect(doc.attributes.xmlns).toBe('http://www.w3.org/2000/svg');
    const panels = doc.children.filter((child) => child.name === 'g');
    expect(panels.map((panel) => panel.attributes['data-title'])).toEqual(['RSS', 'open fds']);
    const names = (panel: Element) => panel.children.filter((child) => child.name === 'polyline').map((line) => line.attributes['data-name']);
    // The NaN splits RSS into two runs: two polylines of one series, then the bound.
    expect(names(panels[0]!)).toEqual(['RSS', 'RSS', 'bound']);
    expect(names(panels[1]!)).toEqual(['fds']);
    for (const line of panels.flatMap((panel) => panel.children.filter((child) => child.name === 'polyline'))) {
      expect(line.attributes.points).toMatch(/^-?[\d.]+,-?[\d.]+( -?[\d.]+,-?[\d.]+)*$/);
    }
    expect(svg).toContain(escapeXml('RSS & fds <over time>'));
    expect(() => parseXml('<svg><g></svg></g>')).toThrow();
    expect(() => parseXml('<svg>a & b</svg>')).toThrow();
  });
});

describe('path locks', () => {
  it('runs the work on one path one at a time, in order, and other paths beside it', async () => {
    const locks = new PathLocks();
    const events: string[] = [];
    const step = (name: string, ms: number) => async () => {
      events.push(`${name} start`);
      await new Promise((resolve) => setTimeout(resolve, ms));
      events.push(`${name} end`);
    };
    await Promise.all([locks.run('a', step('a1', 20)), locks.run('a', step('a2', 1)), locks.run('b', step('b1', 5))]);
    expect(events.indexOf('a1 end')).toBeLessThan(events.indexOf('a2 start'));
    expect(events.indexOf('b1 start')).toBeLessThan(events.indexOf('a1 end'));
  });

  it('releases the path when the work fails', async () => {
    const locks = new PathLocks();
    await expect(locks.run('a', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(locks.run('a', async () => 'next')).resolves.toBe('next');
  });
});

describe('bounded open', () => {
  it('never has more than `concurrency` opens in flight, and collects failures instead of throwing', async () => {
    let inFlight = 0;
    let most = 0;
    const kept: number[] = [];
    const result = await openBounded(
      'client',
      20,
      4,
      async (index) => {
        most = Math.max(most, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, 2));
        inFlight--;
        if (index % 7 === 3) throw new Error('refused');
        return index;
      },
      (index) => kept.push(index),
    );
    expect(most).toBe(4);
    expect(result.opened).toBe(17);
    expect(result.failures).toEqual(['client #3: refused', 'client #10: refused', 'client #17: refused']);
    expect(kept).toHaveLength(17);
    expect(() => requireAllOpened({ clients: { ...result, wanted: 20 } })).toThrow(/clients 17\/20[\s\S]*client #3: refused/);
    expect(() => requireAllOpened({ clients: { opened: 2, failures: [], wanted: 2 } })).not.toThrow();
  });
});
