/**
 * Child process: the change-feed bench's anchor — @parcel/watcher alone, subscribed to BENCH_ROOT with the
 * same ignore list the daemon gives it, printing one JSON line per reported path on stdout
 * (`{"ready":true}` first, once the watches are in place). Stops (unsubscribing) on SIGTERM or stdin's end.
 */
import parcelWatcher from '@parcel/watcher';
import { DEFAULT_IGNORED_FOLDER_NAMES } from '../../core/changes/watcher-source.ts';

const root = process.env.BENCH_ROOT;
if (!root) throw new Error('BENCH_ROOT is required');

const subscription = await parcelWatcher.subscribe(
  root,
  (error, events) => {
    if (error) throw error;
    process.stdout.write(events.map((event) => JSON.stringify({ path: event.path }) + '\n').join(''));
  },
  { ignore: DEFAULT_IGNORED_FOLDER_NAMES.map((name) => `**/${name}`) },
);
process.stdout.write(JSON.stringify({ ready: true }) + '\n');

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  void subscription.unsubscribe().finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
