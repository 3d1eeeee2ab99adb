// `npm test`: the typecheck and the suite at once. On 2 cores the suite leaves gaps (processes starting, git and
// shells running, quiet periods waited out) that tsc's ~40 s fill. tsc's output is held and printed after the
// suite's, so the two never interleave; the exit code is non-zero when either fails.
import { spawn } from 'node:child_process';

// Run through npm, whose PATH leads with node_modules/.bin.
const typecheck = new Promise((resolve) => {
  const child = spawn('tsc', ['--noEmit', '-p', 'tsconfig.json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output = [];
  child.stdout.on('data', (chunk) => output.push(chunk));
  child.stderr.on('data', (chunk) => output.push(chunk));
  child.on('error', (error) => output.push(Buffer.from(`${error.message}\n`)));
  child.on('close', (code) => resolve({ code: code ?? 1, output: Buffer.concat(output).toString('utf8') }));
});

const suite = new Promise((resolve) => {
  const child = spawn('vitest', ['run', ...process.argv.slice(2)], { stdio: 'inherit' });
  child.on('error', (error) => console.error(`vitest could not start: ${error.message}`));
  child.on('close', (code) => resolve(code ?? 1));
});

const [checked, tested] = await Promise.all([typecheck, suite]);
if (checked.code === 0) console.log('typecheck: tsc --noEmit passed');
else process.stdout.write(`typecheck: tsc --noEmit failed (exit ${checked.code}):\n${checked.output}`);
process.exit(checked.code !== 0 ? checked.code : tested);
