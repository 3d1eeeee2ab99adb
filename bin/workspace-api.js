#!/usr/bin/env node
// The sources are TypeScript: register tsx's loader, then run the CLI.
import { register } from 'tsx/esm/api';

register();
await import('../runtime/node/cli.ts');
