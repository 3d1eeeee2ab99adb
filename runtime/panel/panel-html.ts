/**
 * The two HTML pages around the bundles (docs/panel.md#assets). Asset URLs are relative (`panel/…`), so the pages
 * work under a gateway's base path as well as at the root. No inline script: the pages' policy forbids it.
 */

/** The head both pages share: no referrer (the page was opened with the token in its URL), no icon request. */
const head = (title: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${title}</title>
`;

export function panelPageHtml({ script, style }: { script: string; style: string }): string {
  return `${head('workspace')}${style ? `<link rel="stylesheet" href="panel/${style}">\n` : ''}<script type="module" src="panel/${script}"></script>
</head>
<body>
<noscript>The workspace panel needs JavaScript.</noscript>
<div id="panel" class="panel"></div>
</body>
</html>
`;
}

export function docsPageHtml({ renderer }: { renderer: string | undefined }): string {
  // The element is configured by its attributes alone (no inline script): the document relative to the page, so a
  // base path works; no spec loading from elsewhere, no header bar; "try it" sends the bearer token typed into its
  // authentication section. its web fonts (Google's) are off, so nothing is fetched from outside.
  const body = renderer
    ? `<rapi-doc spec-url="openapi.json" render-style="focused" show-header="false" load-fonts="false" allow-spec-url-load="false" allow-spec-file-load="false" allow-server-selection="false" theme="light"></rapi-doc>\n<script src="panel/${renderer}"></script>`
    : `<p>The API reference renderer is not installed here. The document itself is at <a href="openapi.json">openapi.json</a>.</p>`;
  return `${head('workspace-api reference')}</head>
<body>
${body}
</body>
</html>
`;
}
