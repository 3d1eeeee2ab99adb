/** Promises a test resolves by hand: to hold code at a point, and to learn that it got there. */

export interface Deferred<T = void> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A `giveWay` hook (a walk asks it before each folder) that holds every walk until `release()`. */
export interface HeldGiveWay {
  giveWay: () => Promise<void> | undefined;
  /** Resolves once the walk has asked the hook. */
  asked: Promise<void>;
  /** Lets the walk go, now and for every later ask. */
  release(): void;
}

export function heldGiveWay(): HeldGiveWay {
  const held = deferred();
  const asked = deferred();
  let holding = true;
  return {
    giveWay: () => {
      asked.resolve();
      return holding ? held.promise : undefined;
    },
    asked: asked.promise,
    release() {
      holding = false;
      held.resolve();
    },
  };
}
