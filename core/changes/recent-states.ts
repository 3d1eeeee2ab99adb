import { TwoGenerationMap } from '../caching/two-generation-map.ts';
import type { Change } from './change-feed.ts';

/**
 * The last published state (a version, or absent) of the most recently changed paths: a write through the
 * API is reported by our own write path at once and by the OS watcher a moment later, and the second
 * report must not reach subscribers again. Bounded (../caching/two-generation-map.ts: at least `capacity`, at
 * most 2 × `capacity` paths): forgetting a path only means a rare repeat gets through, which subscribers
 * tolerate (a duplicate version is ignored: docs/workspace-files.md#the-change-feed).
 */
export class RecentStates {
  /** path → last version, or null for absent. */
  private readonly states: TwoGenerationMap<string, string | null>;

  constructor(capacity: number) {
    this.states = new TwoGenerationMap(capacity);
  }

  /** Records `change` and says whether it is new; false when it repeats the path's last state. */
  admit(change: Change): boolean {
    const path = change.absolutePath;
    const state = 'absent' in change ? null : change.version;
    const last = this.states.get(path);
    this.states.set(path, state);
    return last !== state;
  }
}
