import type { PanelBuild } from '../panel/build-panel.ts';
import { panelAssetsFrom, type PanelAssets } from '../panel/panel-assets.ts';

export interface NodePanelAssets extends PanelAssets {
  /** Starts the build now (the CLI calls it once it listens), so the first page load does not wait for it. */
  warm(): Promise<PanelBuild>;
}

/** A failed build is answered from memory this long before the next request tries again. */
const RETRY_AFTER_MS = 30_000;

/**
 * The panel this process serves (docs/panel.md#assets), loaded on first need and kept: the package's prebuilt one
 * (`npm run build` puts it in place of runtime/panel/embedded-panel.ts), or, run from source, built here with
 * esbuild (~0.3 s). A build that fails is logged (stderr, once per try) and tried again after RETRY_AFTER_MS, not
 * on every public request.
 */
export function createNodePanelAssets({
  log = (line: string) => process.stderr.write(`${line}\n`),
  build = prebuiltOrBuilt,
}: { log?: (line: string) => void; build?: () => Promise<PanelBuild> } = {}): NodePanelAssets {
  let building: Promise<PanelBuild> | undefined;
  const warm = (): Promise<PanelBuild> => {
    building ??= build().catch((error: unknown) => {
      log(`workspace-api: the web panel could not be built: ${error instanceof Error ? error.message : String(error)}`);
      setTimeout(() => (building = undefined), RETRY_AFTER_MS).unref();
      throw error;
    });
    return building;
  };
  return {
    warm,
    get: async (name) => panelAssetsFrom((await warm()).assets).get(name),
  };
}

async function prebuiltOrBuilt(): Promise<PanelBuild> {
  const started = performance.now();
  const { embeddedPanel } = await import('../panel/embedded-panel.ts');
  if (embeddedPanel !== undefined) return { assets: embeddedPanel, ms: performance.now() - started };
  // Loaded only here: esbuild and the panel's sources are development dependencies, absent from the package.
  const { buildPanel } = await import('../panel/build-panel.ts');
  return buildPanel();
}
