/**
 * `inner` with some methods replaced: every other call goes to `inner` itself (bound, so a backend's own
 * state is never shadowed on the wrapper), for counting or reshaping what the app asks of its FileSystem.
 */
export function withOverrides<T extends object>(inner: T, overrides: Partial<T>): T {
  return new Proxy(inner, {
    get(target, key) {
      if (Object.hasOwn(overrides, key)) return overrides[key as keyof T];
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
