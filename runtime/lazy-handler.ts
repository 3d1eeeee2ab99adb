/**
 * A route's handler module loaded on its first request. The route table names every endpoint of four dialects,
 * ~200 modules with what they import; most apps (a sandbox's UI, a test's in-process app) call a few of them. A
 * module is imported once, when its first request arrives; a load that fails (a broken install) is tried again by
 * the next request, and meanwhile answers as any handler that throws does (the dialect's 500).
 *
 * The Workers bundle stays one file: esbuild inlines a literal `import()` when it bundles without splitting.
 */
import type { Handler } from './context.ts';

export function lazyHandler<K extends string, M extends Record<K, Handler>>(load: () => Promise<M>, name: K): Handler {
  let loaded: Promise<Handler> | undefined;
  return async (request, ctx) => {
    loaded ??= load().then(
      (module) => module[name],
      (error: unknown) => {
        loaded = undefined;
        throw error;
      },
    );
    return (await loaded)(request, ctx);
  };
}
