import { mountChat } from './chat/chat-view.ts';
import { mountEditor } from './editor/editor-area.ts';
import { mountChangeFeed } from './live/change-feed.ts';
import { mountGitStatus } from './live/git-status.ts';
import { mountQuickOpen } from './search/quick-open.ts';
import { mountSearch } from './search/search-view.ts';
import type { PanelContext } from './shell/panel-context.ts';
import { mountTerminals } from './terminals/terminal-panel.ts';
import { mountFileTree } from './tree/file-tree.ts';

/**
 * The panel's parts, in mounting order: the editor first (it registers how files open), the views of the side
 * bar, the terminals, and last the live feeds that keep them current.
 */
export async function mountFeatures(ctx: PanelContext): Promise<void> {
  mountEditor(ctx);
  await mountFileTree(ctx);
  mountSearch(ctx);
  mountQuickOpen(ctx);
  mountChat(ctx);
  await mountTerminals(ctx);
  mountChangeFeed(ctx);
  mountGitStatus(ctx);
}
