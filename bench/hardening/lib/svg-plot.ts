/**
 * A small SVG writer for the hardening runs' time series: one panel per series, stacked, sharing the time axis,
 * each with its own y axis, ticks, labels and legend; optional vertical marks for phases. Self-written so the
 * bench needs no plotting dependency; the output is plain XML any browser shows.
 */

export interface PlotLine {
  name: string;
  /** [x, y]; non-finite points are skipped (a gap in the line). */
  points: readonly (readonly [number, number])[];
  color?: string;
  /** Drawn dashed (a bound, a baseline). */
  dashed?: boolean;
}

export interface PlotPanel {
  title: string;
  unit: string;
  lines: PlotLine[];
}

export interface PlotOptions {
  title: string;
  xLabel: string;
  panels: PlotPanel[];
  /** Vertical lines across every panel at these x values (phase changes). */
  marks?: { name: string; x: number }[];
  width?: number;
  panelHeight?: number;
}

const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf'];
const MARGIN = { left: 72, right: 24, top: 44, bottom: 40, gap: 46 };

/** "Nice" tick values (1, 2 or 5 × 10^k apart) covering [min, max], about `count` of them. */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [];
  if (min === max) {
    const pad = Math.abs(min) > 0 ? Math.abs(min) * 0.1 : 1;
    return niceTicks(min - pad, max + pad, count);
  }
  const rough = (max - min) / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? 10 * power;
  const ticks: number[] = [];
  for (let v = Math.floor(min / step) * step; v <= max + step * 1e-9; v += step) ticks.push(Number(v.toPrecision(12)));
  if (ticks[ticks.length - 1]! < max) ticks.push(Number((ticks[ticks.length - 1]! + step).toPrecision(12)));
  return ticks;
}

export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
}

function formatTick(value: number): string {
  if (value === 0) return '0';
  const abs = Math.abs(value);
  if (abs >= 1e6 || abs < 1e-3) return value.toExponential(1);
  return String(Number(value.toPrecision(4)));
}

export function renderPlot(options: PlotOptions): string {
  const width = options.width ?? 900;
  const panelHeight = options.panelHeight ?? 170;
  const plotWidth = width - MARGIN.left - MARGIN.right;
  const height = MARGIN.top + options.panels.length * (panelHeight + MARGIN.gap) - MARGIN.gap + MARGIN.bottom;

  const allX = options.panels.flatMap((panel) => panel.lines.flatMap((line) => line.points.map(([x]) => x))).filter(Number.isFinite);
  const xTicks = niceTicks(allX.length ? Math.min(...allX) : 0, allX.length ? Math.max(...allX) : 1, 8);
  const [x0, x1] = [xTicks[0] ?? 0, xTicks[xTicks.length - 1] ?? 1];
  const sx = (x: number) => MARGIN.left + ((x - x0) / (x1 - x0 || 1)) * plotWidth;

  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${width / 2}" y="20" text-anchor="middle" font-size="14" font-weight="bold">${escapeXml(options.title)}</text>`,
  ];

  options.panels.forEach((panel, index) => {
    const top = MARGIN.top + index * (panelHeight + MARGIN.gap);
    const bottom = top + panelHeight;
    const ys = panel.lines.flatMap((line) => line.points.map(([, y]) => y)).filter(Number.isFinite);
    const yTicks = niceTicks(ys.length ? Math.min(...ys) : 0, ys.length ? Math.max(...ys) : 1, 4);
    const [y0, y1] = [yTicks[0] ?? 0, yTicks[yTicks.length - 1] ?? 1];
    const sy = (y: number) => bottom - ((y - y0) / (y1 - y0 || 1)) * panelHeight;

    out.push(`<g class="panel" data-title="${escapeXml(panel.title)}">`);
    out.push(`<text x="${MARGIN.left}" y="${top - 8}" font-size="12" font-weight="bold">${escapeXml(`${panel.title} (${panel.unit})`)}</text>`);
    for (const tick of yTicks) {
      const y = sy(tick).toFixed(1);
      out.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + plotWidth}" y1="${y}" y2="${y}" stroke="#e5e5e5"/>`);
      out.push(`<text x="${MARGIN.left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${formatTick(tick)}</text>`);
    }
    for (const tick of xTicks) {
      const x = sx(tick).toFixed(1);
      out.push(`<line x1="${x}" x2="${x}" y1="${bottom}" y2="${bottom + 4}" stroke="#333"/>`);
      out.push(`<text x="${x}" y="${bottom + 15}" text-anchor="middle">${formatTick(tick)}</text>`);
    }
    out.push(`<rect x="${MARGIN.left}" y="${top}" width="${plotWidth}" height="${panelHeight}" fill="none" stroke="#333"/>`);
    for (const mark of options.marks ?? []) {
      const x = sx(mark.x).toFixed(1);
      out.push(`<line x1="${x}" x2="${x}" y1="${top}" y2="${bottom}" stroke="#888" stroke-dasharray="2,3"/>`);
      if (index === 0) out.push(`<text x="${x}" y="${top + 10}" dx="3" fill="#666">${escapeXml(mark.name)}</text>`);
    }
    panel.lines.forEach((line, lineIndex) => {
      const color = line.color ?? PALETTE[lineIndex % PALETTE.length]!;
      for (const segment of segments(line.points)) {
        const path = segment.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(' ');
        out.push(
          `<polyline class="series" data-name="${escapeXml(line.name)}" fill="none" stroke="${color}" stroke-width="1.5"${line.dashed ? ' stroke-dasharray="6,4"' : ''} points="${path}"/>`,
        );
      }
      const legendX = MARGIN.left + plotWidth - 8;
      const legendY = top + 14 + lineIndex * 14;
      out.push(`<text x="${legendX}" y="${legendY}" text-anchor="end" fill="${color}">${escapeXml(line.name)}</text>`);
    });
    out.push('</g>');
  });

  const axisY = height - 10;
  out.push(`<text x="${MARGIN.left + plotWidth / 2}" y="${axisY}" text-anchor="middle">${escapeXml(options.xLabel)}</text>`);
  out.push('</svg>');
  return out.join('\n') + '\n';
}

/** Runs of consecutive finite points: a missing reading breaks the line instead of bridging it. */
function segments(points: readonly (readonly [number, number])[]): (readonly [number, number])[][] {
  const runs: (readonly [number, number])[][] = [];
  let current: (readonly [number, number])[] = [];
  for (const point of points) {
    if (Number.isFinite(point[0]) && Number.isFinite(point[1])) current.push(point);
    else if (current.length > 0) {
      runs.push(current);
      current = [];
    }
  }
  if (current.length > 0) runs.push(current);
  return runs;
}
