/**
 * The web panel's files as the handlers serve them (docs/panel.md#assets): the page, its script and style bundles
 * (content-hashed names, cached for good) and the API reference page. Made by runtime/panel/build-panel.ts on Node,
 * embedded in the Worker bundle by runtime/worker-build.ts. Types only: handlers read assets through the context.
 */
export interface PanelAsset {
  /** Text assets stay strings (the Worker embeds them as such); everything the panel has is text. */
  body: string;
  contentType: string;
  /** A content-hashed name: the bytes behind it never change, so a browser may keep it for a year. */
  immutable: boolean;
  /** A strong entity tag of the body. */
  etag: string;
}

/** Asset names are relative to the panel's folder: `index.html`, `docs.html`, `app-3KD9.js`, `chunks/…`. */
export type PanelAssetMap = Readonly<Record<string, PanelAsset>>;

/** Where a running app gets its panel: built on demand on Node, embedded on Workers. */
export interface PanelAssets {
  /** The asset of that name, or undefined; rejects when the panel could not be built (the reason is the message). */
  get(name: string): Promise<PanelAsset | undefined>;
}

/** A source over a finished map (the Worker's embedded one, tests' fixtures). */
export function panelAssetsFrom(map: PanelAssetMap): PanelAssets {
  return { get: async (name) => (Object.hasOwn(map, name) ? map[name] : undefined) };
}
