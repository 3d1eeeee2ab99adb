import { z } from 'zod';

/**
 * A query parameter holding a whole number (oRPC's OpenAPILink sends numbers as digit strings): an optional
 * `-` and digits only, so "1.5", "1e3", "0x10", " 5" and "" are refused rather than guessed at, and the value
 * must be a safe integer (beyond 2^53 - 1 two numbers can no longer be told apart) of at least `min` if given.
 */
export function queryInteger(min?: number) {
  const message = min === undefined ? 'must be a whole number' : `must be a whole number of at least ${min}`;
  const integer = z
    .string()
    .regex(/^-?[0-9]+$/, message)
    .transform((digits) => Number(digits) || 0) // "-0" is 0
    .refine(Number.isSafeInteger, { message: 'must be a safe integer (at most 2^53 - 1 in magnitude)', abort: true });
  return min === undefined ? integer : integer.refine((n) => n >= min, message);
}
