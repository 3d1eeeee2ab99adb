import type { Change } from './change-feed.ts';

/**
 * The last published state (a version, or absent) of the most recently changed paths: a write through the
 * API is reported by our own write path at once and by the OS watcher a moment later, and the second
 * report must not reach subscribers again. Bounded: forgetting a path only means a rare repeat gets through,
 * which subscribers tolerate (a duplicate version is ignored: docs/workspace-files.md#the-change-feed).
 *
 * Two generations rather than one ordered map (the "hashlru" scheme): evicting a Map's oldest entry means
 * iterating from its start, which V8 makes slower the more entries were deleted before it, while swapping a
 * full generation out is O(1). It remembers at least `capacity` and at most 2 × `capacity` paths.
 */
export class RecentStates {
  /** path → last version, or null for absent. */
  private current = new Map<string, string | null>();
  private previous = new Map<string, string | null>();

  constructor(private readonly capacity: number) {}

  /** Records `change` and says whether it is new; false when it repeats the path's last state. */
  admit(change: Change): boolean {
    const path = change.absolutePath;
    const state = 'absent' in change ? null : change.version;
    const last = this.current.has(path) ? this.current.get(path) : this.previous.get(path);
    this.remember(path, state);
    return last !== state;
  }

  private remember(path: string, state: string | null): void {
    if (this.current.has(path)) {
      this.current.set(path, state);
      return;
    }
    if (this.current.size >= this.capacity) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(path, state);
  }
}
