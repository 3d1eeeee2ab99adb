import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleWorker, projectRoot } from '../../runtime/worker-build.ts';

/**
 * DESIGN.md §2: no handler imports `node:*`, and the Workers bundle runs on workerd without nodejs_compat.
 * Two independent checks: a source scan of handlers/ and of every project file in the worker's import graph,
 * and esbuild's own view of that graph (the metafile of the real worker bundle).
 */

const NODE_BUILTINS = [
  'fs', 'path', 'os', 'child_process', 'crypto', 'http', 'net', 'stream', 'util', 'buffer', 'url', 'events',
  'worker_threads', 'tty', 'zlib',
];

/** `node:anything`, or a builtin by bare name, with or without a subpath ("fs/promises", "stream/web"). */
export function isNodeSpecifier(specifier: string): boolean {
  if (specifier.startsWith('node:')) return true;
  const [head] = specifier.split('/');
  return NODE_BUILTINS.includes(head!);
}

// One pass over the text: string literals are swapped for numbered placeholders and comments for a space, so
// neither `// import fs from 'fs'` in a comment nor "import os from 'os'" inside a string reads as an import.
const COMMENT_OR_STRING = /("(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`)|\/\*[\s\S]*?\*\/|\/\/[^\n]*/g;

const SPECIFIER_PATTERNS = [
  // import x from 'm' · import { a, b } from 'm' (multi-line) · import type … from 'm' · export … from 'm'
  /\b(?:import|export)\b[^;"]*?\bfrom\s*"(\d+)"/g,
  // import 'm' (side effect only)
  /\bimport\s*"(\d+)"/g,
  // import('m') · require('m')
  /\b(?:import|require)\s*\(\s*"(\d+)"\s*\)/g,
];

/** Every module specifier `source` imports, re-exports, dynamically imports or requires. */
export function importedSpecifiers(source: string): string[] {
  const strings: string[] = [];
  const code = source.replace(COMMENT_OR_STRING, (_match, literal: string | undefined) => {
    if (literal === undefined) return ' ';
    strings.push(literal.slice(1, -1));
    return `"${strings.length - 1}"`;
  });
  const found: string[] = [];
  for (const pattern of SPECIFIER_PATTERNS) {
    for (const match of code.matchAll(pattern)) found.push(strings[Number(match[1])]!);
  }
  return found;
}

/** The Node-only specifiers in `source` (empty when it is edge-clean). */
export function nodeImports(source: string): string[] {
  return importedSpecifiers(source).filter(isNodeSpecifier);
}

async function tsFilesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

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
