/**
 * Compares two secrets (tokens, MACs) without an early exit, so timing does not reveal how much of a guess was right
 * — nor, by stopping at the shorter one, its length.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const encoder = new TextEncoder();
  const left = encoder.encode(a);
  const right = encoder.encode(b);
  let diff = left.length ^ right.length;
  for (let i = 0; i < right.length; i++) diff |= (left[i % Math.max(left.length, 1)] ?? 0) ^ right[i]!;
  return diff === 0;
}
