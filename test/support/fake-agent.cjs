'use strict';
/**
 * A stand-in for an agent CLI (`opencode`, `kilo`), installed by ./fake-agent-cli.ts as an executable under the
 * agent's name. CommonJS on purpose: the installed copy has no extension and no package.json near it, and that is
 * how Node reads such a file.
 *
 * It does what the daemon asks of a real agent, and records what it was given so a test can check it:
 * - `run --help`: the usage text the daemon's identity probe looks for (or what `<file>.json` says to print);
 * - `serve --port 0`: an HTTP server on 127.0.0.1 whose port it prints, as `<config>.serve` scripts;
 * - anything else is a chat run: it records argv, env, cwd, its process group and each `-f` file's bytes, then plays
 *   the scenario its prompt names (the first argument whose first word is one, e.g. `lines chat-7`).
 * Records are JSON files in $FAKE_AGENT_RECORDS, each written whole (a rename), before any output: a test that
 * has seen the first line can read the record.
 */
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { spawn } = require('node:child_process');

const MiB = 1024 * 1024;
const exe = __filename;
const name = path.basename(exe);
const argv = process.argv.slice(2);
const recordsDir = process.env.FAKE_AGENT_RECORDS;
const config = readConfig();

function readConfig() {
  try {
    return JSON.parse(fs.readFileSync(`${exe}.json`, 'utf8'));
  } catch {
    return {};
  }
}

function record(file, value) {
  if (recordsDir === undefined) return;
  const target = path.join(recordsDir, file);
  fs.writeFileSync(`${target}.part`, JSON.stringify(value));
  fs.renameSync(`${target}.part`, target);
}

/** Who this process is: what the daemon set up for it (group, session, cwd, where its fds 0–2 lead, env). */
function self() {
  const stat = fs.readFileSync('/proc/self/stat', 'latin1');
  const [, ppid, pgid, sid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
  // Node's child pipes are socket pairs: either kind means "read by the daemon".
  const fd = (n) => fs.readlinkSync(`/proc/self/fd/${n}`).replace(/^(pipe|socket):\[\d+\]$/, 'pipe');
  return { exe, argv, pid: process.pid, ppid, pgid, sid, cwd: process.cwd(), fds: [fd(0), fd(1), fd(2)], env: { ...process.env } };
}

const hang = () => setInterval(() => {}, 1 << 30);
const later = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const out = (text) => new Promise((resolve) => process.stdout.write(text, () => resolve()));
const err = (text) => new Promise((resolve) => process.stderr.write(text, () => resolve()));

if (recordsDir !== undefined) {
  fs.appendFileSync(path.join(recordsDir, 'invocations.jsonl'), JSON.stringify({ exe, argv, pid: process.pid, env: process.env }) + '\n');
}

function serve() {
  const me = self();
  const junk = Array.from({ length: config.junkLines ?? 0 }, (_, i) => `${name} starting (${i + 1}): config at localhost:4096, http://0.0.0.0:1\n`).join('');
  if (config.serve === 'no-port-exit') {
    record(`serve-${process.pid}.json`, me);
    process.stdout.write(`${junk}${name} could not start\n`);
    return;
  }
  if (config.serve === 'no-port-hang') {
    record(`serve-${process.pid}.json`, me);
    process.stdout.write(`${junk}${name} starting...\n`);
    hang();
    return;
  }
  const server = http.createServer((request, response) => response.end(`fake ${name}\n`));
  server.listen(0, '127.0.0.1', async () => {
    const { port } = server.address();
    record(`serve-${process.pid}.json`, { ...me, port });
    // Held until the test lets it go: its chats stay "starting" for as long as the test needs.
    const release = path.join(recordsDir ?? '.', 'release-serve');
    while (config.holdPort && !fs.existsSync(release)) await later(10);
    process.stdout.write(`${junk}${name} server listening on http://127.0.0.1:${port}\n`);
  });
}

async function run() {
  const me = self();
  const files = [];
  for (let i = 0; i < argv.length - 1; i++) {
    if (argv[i] !== '-f') continue;
    const file = argv[i + 1];
    files.push({
      path: file,
      mode: fs.statSync(file).mode & 0o777,
      folderMode: fs.statSync(path.dirname(file)).mode & 0o777,
      base64: fs.readFileSync(file).toString('base64'),
    });
  }
  const prompt = argv.find((arg) => SCENARIOS[arg.split(' ')[0]] !== undefined) ?? null;
  const scenario = prompt === null ? 'hello' : prompt.split(' ')[0];
  let grandchild;
  if (scenario === 'spawnchild') {
    // Same process group as this run (not detached), its own output nowhere: only a group kill ends it.
    grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' }).pid;
  }
  record(`run-${process.pid}.json`, { ...me, prompt, scenario, files, grandchild });
  await SCENARIOS[scenario]();
}

const SCENARIOS = {
  hello: () => out(`hello from ${name}\n`),
  // Terminators and empty lines, a `\r\n` cut between two writes, a bare `\r` inside a line, an unterminated end.
  lines: async () => {
    await err('warn 1\n\nwarn 2\r\n');
    for (const piece of ['one\r\n', '\n', 'tw', 'o\r', '\n', '\r\n', 'carriage\rreturn\n', 'three']) {
      await out(piece);
      await later(5);
    }
  },
  // Bytes that are not UTF-8, and a good character cut between two writes.
  bytes: async () => {
    await out(Buffer.from([0x61, 0xff, 0x62, 0x0a, 0xe2, 0x82]));
    await later(20);
    await out(Buffer.from([0xac, 0x0a, 0x63, 0x61, 0x66, 0xe9, 0x0a, 0xe2, 0x82, 0x0a, 0xf0, 0x9f, 0x98, 0x80, 0x0a]));
  },
  // One line of 5 MiB + 100 bytes: a MiB of `a`, of `b`, … of `e`, then 100 `f`; then a short line.
  big: async () => {
    const line = Buffer.concat([...'abcde'].map((c) => Buffer.alloc(MiB, c)).concat(Buffer.alloc(100, 'f'), Buffer.from('\nafter\n')));
    await out(line);
  },
  // 100 MiB on stdout: 1600 lines of 65 535 `x`.
  flood: async () => {
    const line = Buffer.alloc(64 * 1024, 'x');
    line[line.length - 1] = 0x0a;
    for (let i = 0; i < 1600; i++) await out(line);
  },
  hang: async () => {
    await out('ready\n');
    hang();
  },
  // A run that ignores SIGTERM: only the KILL after the grace ends it.
  stubborn: async () => {
    process.on('SIGTERM', () => {});
    await out('ready\n');
    hang();
  },
  exit3: async () => {
    await out('failing\n');
    process.exitCode = 3;
  },
  spawnchild: async () => {
    await out('ready\n');
    hang();
  },
};

if (argv[0] === 'serve') serve();
else if (argv[0] === 'run' && argv.includes('--help')) process.stdout.write(config.help ?? `${name} run [message..]\n\nrun ${name} with a message\n`);
else void run();
