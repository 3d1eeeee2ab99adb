/**
 * The workspace ./search-worker.ts seeds and ../durable-object-search.test.ts searches (shared by both; a Worker
 * module may export only handlers, so it lives here).
 */
export const ROOT = '/workspace';
export const TOKEN = 'search-test';

/** File `i`: folders of 100 files, 99 TypeScript modules and a Markdown guide in each. */
export function generatedFile(i: number): { path: string; text: string } {
  const folder = `src/pkg${String(Math.floor(i / 100)).padStart(3, '0')}`;
  if (i % 100 === 99) {
    return {
      path: `${folder}/guide${i}.md`,
      text: `# Guide ${i}\n\nHow the caching layer ${i % 7 === 0 ? 'evicts stale entries' : 'keeps hot entries'} in package ${i}.\n`,
    };
  }
  return {
    path: `${folder}/file${i}.ts`,
    text:
      `// generated module ${i}\n` +
      `export function widget${i}(input: number): number {\n` +
      `  return input * ${i % 97} + shared${i % 50}();\n` +
      `}\n` +
      `export const label${i} = 'token${i % 37} marker';\n`,
  };
}
