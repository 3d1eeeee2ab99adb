/**
 * Order by UTF-16 code unit, the order the dialects ask for ("sorted by code unit") and JavaScript's default sort:
 * independent of locale, so every runtime answers the same.
 */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
