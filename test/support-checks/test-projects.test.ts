import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { ISOLATED_EXCEPTIONS, SHARED_TESTS } from '../support/test-projects.ts';

const ROOT = join(import.meta.dirname, '..', '..');

function testFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => relative(ROOT, join(ROOT, dir, name)))
    .sort();
}

/**
 * What a file that shares its worker process with others must not do (test/support/test-projects.ts). Setting an
 * environment variable for a while is done through test/support/processes.ts's usePlainShell, which restores it; a
 * Node server puts the Response implementation back when it closes (runtime/node/server.ts).
 */
const PROCESS_WIDE = [
  /\bsetResponseImplementation\b/,
  /\bvi\.(mock|doMock|stubEnv|stubGlobal)\(/,
  /\bprocess\.chdir\(/,
  /\bprocess\.env(\.\w+|\[[^\]]+\])\s*=[^=]/,
  /\bdelete process\.env\b/,
];
/** A spy on the console or the process is allowed when the file restores what it spied on (or all of them). */
const SPY = /\bvi\.spyOn\((console|process)\b/g;

describe('test projects (vitest.config.ts, test/support/test-projects.ts)', () => {
  const files = testFiles('test');
  const shared = picomatch(SHARED_TESTS);

  it('every exception names an existing file in a shared folder', () => {
    for (const exception of ISOLATED_EXCEPTIONS) {
      expect(files, exception).toContain(exception);
      expect(shared(exception), exception).toBe(true);
    }
  });

  it('no file that shares its worker process starts a server, mocks a module or changes process-wide state', () => {
    const offenders: string[] = [];
    for (const file of files.filter((f) => shared(f) && !ISOLATED_EXCEPTIONS.includes(f))) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const pattern of PROCESS_WIDE) if (pattern.test(text)) offenders.push(`${file}: ${pattern}`);
      const spies = text.match(SPY)?.length ?? 0;
      const restores = text.match(/\.mockRestore\(\)/g)?.length ?? 0;
      if (spies > restores && !/\bvi\.restoreAllMocks\(\)/.test(text)) offenders.push(`${file}: ${spies} vi.spyOn on console/process, ${restores} mockRestore()`);
    }
    expect(offenders).toEqual([]);
  });
});
