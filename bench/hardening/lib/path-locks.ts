/**
 * One lock per path, for traffic whose bookkeeping must match the disk: the soak reuses a few dozen file names, so
 * a write and a delete of the same name can overlap across workers. Unserialised, a delete could remove a file a
 * write had just recreated, and the delete picked for that write would then find nothing — an error made by the
 * harness, not by the daemon. Under the path's lock, "written" means "exists".
 */
export class PathLocks {
  readonly #tails = new Map<string, Promise<void>>();

  /** Runs `work` once every earlier `run` on `path` has settled. */
  async run<T>(path: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(path) ?? Promise.resolve();
    let release!: () => void;
    const tail = new Promise<void>((resolve) => (release = resolve));
    this.#tails.set(path, tail);
    await previous;
    try {
      return await work();
    } finally {
      release();
      // The last holder forgets the path, so the map holds only paths in use.
      if (this.#tails.get(path) === tail) this.#tails.delete(path);
    }
  }
}
