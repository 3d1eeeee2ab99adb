/**
 * vitest setupFiles: each test file gets a fresh, empty HOME of its own inside the run's (isolated-home.ts). The
 * two workers run files side by side, and what one file's shells leave in HOME (bash history, git and search
 * caches) must not show up in a file running next to it.
 */
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';

const runHome = process.env.WSAPI_TEST_RUN_HOME;
if (runHome === undefined) throw new Error('test/support/isolated-home.ts (vitest globalSetup) did not run');
process.env.HOME = mkdtempSync(join(runHome, 'file-'));
