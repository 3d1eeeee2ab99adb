#!/usr/bin/env node
// The compiled daemon (dist/build, made by `npm run build`; a clone builds it on install, `npm start` when stale).
try {
  await import('../dist/build/runtime/node/cli.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/build/runtime/node/cli.js')) throw error;
  process.stderr.write('workspace-api: the daemon is not built here; run `npm run build` in the package folder first\n');
  process.exit(1);
}
