import { buildPanel, type PanelBuild } from '../panel/build-panel.ts';
import type { PanelAssets } from '../panel/panel-assets.ts';

export interface NodePanelAssets extends PanelAssets {
  /** Starts the build now (the CLI calls it once it listens), so the first page load does not wait for it. */
  warm(): Promise<PanelBuild>;
}

/**
 * The panel built in this process on first need and kept (docs/panel.md#assets): one esbuild run, ~0.3 s. A build
 * that fails is not kept, so the next request tries again (and says why meanwhile).
 */
export function createNodePanelAssets(): NodePanelAssets {
  let building: Promise<PanelBuild> | undefined;
  const warm = (): Promise<PanelBuild> => {
    building ??= buildPanel().catch((error: unknown) => {
      building = undefined;
      throw error;
    });
    return building;
  };
  return {
    warm,
    async get(name) {
      const { assets } = await warm();
      return Object.hasOwn(assets, name) ? assets[name] : undefined;
    },
  };
}
