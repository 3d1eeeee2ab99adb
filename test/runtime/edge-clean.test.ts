import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleWorker, projectRoot } from '../../runtime/worker-build.ts';
import { isNodeSpecifier, nodeImports, tsFilesUnder } from '../support/module-imports.ts';

/**
 * docs/architecture.md#layers: no handler imports `node:*`, and the Workers bundle runs on workerd without nodejs_compat.
 * Two independent checks: a source scan of handlers/ and of every project file in the worker's import graph,
 * and esbuild's own view of that graph (the metafile of the real worker bundle).
 */

async function violationsIn(files: string[]): Promise<string[]> {
  const violations: string[] = [];
  for (const file of files) {
    for (const specifier of nodeImports(await readFile(file, 'utf8'))) {
      violations.push(`${relative(projectRoot, file)} imports '${specifier}'`);
    }
  }
  return violations;
}

describe('the scanner', () => {
  it('finds every import form', () => {
    const sample = `
      import fs from 'fs';
      import { readFile } from "node:fs/promises";
      import {
        join,
        dirname,
      } from 'path';
      import type { Server } from 'http';
      import * as os from 'os';
      import 'events';
      export { inspect } from 'util';
      export * from 'node:stream';
      export type { Socket } from 'net';
      const cp = await import('child_process');
      const z = await import(\`zlib\`);
      const b = require('buffer');
      const c = require( "crypto" );
      import { Worker } from 'worker_threads'
      import tty from 'tty'
      import { pathToFileURL } from 'url';
      import web from 'stream/web';
    `;
    expect(nodeImports(sample)).toEqual(
      expect.arrayContaining([
        'fs', 'node:fs/promises', 'path', 'http', 'os', 'events', 'util', 'node:stream', 'net', 'child_process',
        'zlib', 'buffer', 'crypto', 'worker_threads', 'tty', 'url', 'stream/web',
      ]),
    );
    expect(nodeImports(sample)).toHaveLength(17);
  });

  it('passes edge-clean code and does not mistake look-alikes for builtins', () => {
    const sample = `
      import { z } from 'zod';
      import mime from 'mime/lite';
      import { join } from '../../adapters/fs/posix-path.ts';
      import type { FileSystem } from './fs.ts';
      import pathe from 'pathe';
      import fsExtra from 'fs-extra';
      import utility from 'utility';
      import { Router } from 'itty-router';
      // import fs from 'fs';  (commented out)
      /* const p = require('path'); */
      const label = "the docs say: import os from 'os'";
      const url = 'https://example.com/path';
      const fromPath = 1; export { fromPath };
    `;
    expect(nodeImports(sample)).toEqual([]);
  });

  it('classifies specifiers', () => {
    expect(isNodeSpecifier('node:test')).toBe(true);
    expect(isNodeSpecifier('fs/promises')).toBe(true);
    expect(isNodeSpecifier('fs-extra')).toBe(false);
    expect(isNodeSpecifier('./fs.ts')).toBe(false);
    expect(isNodeSpecifier('mime')).toBe(false);
  });
});

describe('edge-clean sources', () => {
  let metafile: Metafile;

  beforeAll(async () => {
    metafile = await bundleWorker('dist/test-edge/worker.js');
  });

  it('no handler imports a Node builtin', async () => {
    const handlers = await tsFilesUnder(join(projectRoot, 'handlers'));
    expect(handlers.length).toBeGreaterThan(0);
    expect(await violationsIn(handlers)).toEqual([]);
  });

  it("no project file in the worker's import graph imports a Node builtin", async () => {
    const projectInputs = Object.keys(metafile.inputs)
      .filter((input) => !input.startsWith('node_modules/') && input.endsWith('.ts'))
      .map((input) => join(projectRoot, input));
    expect(projectInputs).toContain(join(projectRoot, 'runtime/worker.ts'));
    expect(await violationsIn(projectInputs)).toEqual([]);
  });

  it("esbuild's metafile of the worker bundle holds no node: module", () => {
    const inputs = Object.keys(metafile.inputs);
    expect(inputs.filter((input) => input.startsWith('node:'))).toEqual([]);
    // A builtin left external (never resolved into an input) still shows up among the imports.
    const externalNodeImports = Object.entries(metafile.inputs).flatMap(([input, { imports }]) =>
      imports
        .filter((imported) => imported.path.startsWith('node:') || (imported.external && isNodeSpecifier(imported.path)))
        .map((imported) => `${input} imports '${imported.path}'`),
    );
    expect(externalNodeImports).toEqual([]);
    const outputImports = Object.values(metafile.outputs).flatMap((output) => output.imports.map((i) => i.path));
    expect(outputImports.filter(isNodeSpecifier)).toEqual([]);
  });
});
