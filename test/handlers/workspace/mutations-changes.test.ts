/**
 * Every tree mutation reaches the change feed before its answer does (the app's observed FileSystem):
 * a subscriber that subscribed before the call has the change queued by the time the client sees `ok`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Change, ChangeSubscription, FeedFrame } from '../../../core/changes/change-feed.ts';
import { BACKENDS, createFixture, type Fixture } from '../../support/backends.ts';

/**
 * Reads a subscription without blocking: `queued()` returns the changes already queued (a 0 ms timer lets
 * every delivery already due run first). One iterator and its one pending `next()` are kept across calls,
 * so no frame is lost to a read that timed out.
 */
function reader(subscription: ChangeSubscription): { queued(): Promise<Change[]> } {
  const iterator = subscription[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<FeedFrame>> | undefined;
  return {
    async queued() {
      const changes: Change[] = [];
      for (;;) {
        pending ??= iterator.next();
        const next = await Promise.race([pending, new Promise<'idle'>((r) => setTimeout(() => r('idle'), 0))]);
        if (next === 'idle') break;
        pending = undefined;
        if (next.done) break;
        if (next.value.kind === 'change') changes.push(next.value.change);
      }
      return changes;
    },
  };
}

describe.each(BACKENDS)('tree mutations in the change feed (%s)', (backend) => {
  let b: Fixture;
  let subscription: ChangeSubscription | undefined;
  afterEach(async () => {
    subscription?.close();
    await b.cleanup();
  });

  it('reports what each call made and removed, before it answers', async () => {
    b = await createFixture(backend, { 'a.txt': 'A', 'src/app.ts': 'app' });
    const at = (rel: string) => `${b.root}/${rel}`;
    const present = (rel: string) => ({ absolutePath: at(rel), version: expect.any(String) });
    const absent = (rel: string) => ({ absolutePath: at(rel), absent: true });
    subscription = b.app.changes.subscribe({ under: b.root });
    const { queued } = reader(subscription);

    await b.client.workspace.mkdir({ path: 'made' });
    expect(await queued()).toContainEqual(present('made'));

    await b.client.workspace.copy({ from: 'src', to: 'made/src' });
    expect(await queued()).toEqual(expect.arrayContaining([present('made/src')]));

    await b.client.workspace.move({ from: 'a.txt', to: 'made/a.txt' });
    expect(await queued()).toEqual(expect.arrayContaining([absent('a.txt'), present('made/a.txt')]));

    await b.client.workspace.delete({ path: 'made' });
    expect(await queued()).toContainEqual(absent('made'));
  });
});
