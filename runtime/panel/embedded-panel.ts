import type { PanelAssetMap } from './panel-assets.ts';

/**
 * The panel a Worker bundle carries (docs/panel.md#assets). This module is a placeholder: runtime/worker-build.ts
 * builds the panel and puts its assets in place of this file's contents, so the Worker serves them from its own
 * bundle. Run from source (tests importing runtime/worker.ts), there is no panel.
 */
export const embeddedPanel: PanelAssetMap | undefined = undefined;
