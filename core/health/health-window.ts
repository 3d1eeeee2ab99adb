/**
 * `since` of `GET /workspace/health` (docs/intentic-projects.md#health): `^(\d+)([hdwm])$` — hours, days, weeks, and `m` for
 * 30 days. Absent: all history. Anything else is BAD_REQUEST naming the value (Intentic answers 500).
 */
export const SINCE_PATTERN = /^(\d+)([hdwm])$/;

const HOUR_MS = 60 * 60 * 1000;
const UNIT_MS: Record<string, number> = { h: HOUR_MS, d: 24 * HOUR_MS, w: 7 * 24 * HOUR_MS, m: 30 * 24 * HOUR_MS };

/** The window's length in ms, or undefined when `since` is not well formed. */
export function sinceWindowMs(since: string): number | undefined {
  const match = SINCE_PATTERN.exec(since);
  if (!match) return undefined;
  return Number(match[1]) * UNIT_MS[match[2]!]!;
}
