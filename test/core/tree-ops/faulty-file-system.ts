import type { FileSystem } from '../../../adapters/fs/file-system.ts';

/**
 * A real FileSystem with a recorder and a fault switch in front: counts every call by method, and makes the
 * calls `failOn` picks throw `error` instead of running.
 */
export function instrumented(fs: FileSystem): {
  fs: FileSystem;
  calls: Record<string, number>;
  /** Every call's arguments, by method. */
  args: Record<string, unknown[][]>;
  failOn(predicate: (method: string, args: unknown[]) => boolean, error: Error): void;
} {
  const calls: Record<string, number> = {};
  const args: Record<string, unknown[][]> = {};
  let fault: { predicate: (method: string, args: unknown[]) => boolean; error: Error } | undefined;
  const proxy = new Proxy(fs, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function' || typeof key !== 'string') return value;
      return (...given: unknown[]) => {
        calls[key] = (calls[key] ?? 0) + 1;
        (args[key] ??= []).push(given);
        if (fault?.predicate(key, given)) return Promise.reject(fault.error);
        return value.apply(target, given);
      };
    },
  });
  return {
    fs: proxy,
    calls,
    args,
    failOn(predicate, error) {
      fault = { predicate, error };
    },
  };
}
