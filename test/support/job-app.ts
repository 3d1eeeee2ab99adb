/**
 * The app the job tests drive (installs, add-apps, dev servers, test runs: core/jobs): a fresh temp workspace, a real
 * pty, the Node job host and this machine's command lookup, so `POST /workspace/setup/install`, `…/apps`, `…/start`
 * and `…/tests` run real processes in named terminals. `useJobApp` builds one per test (beforeEach) and tears it
 * down after (the app's jobs and terminals, then every pty child, then the folder).
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { NodeCommandLookup } from '../../adapters/process/node-command-lookup.ts';
import { NodeJobHost } from '../../adapters/process/node-job-host.ts';
import { NodePtyAdapter } from '../../adapters/pty/node-pty-adapter.ts';
import type { TerminalSession } from '../../core/terminals/terminal-manager.ts';
import type { WorkspaceApp, WorkspaceAppOptions } from '../../runtime/app.ts';
import { intenticClient, type IntenticClient } from './intentic-contract.ts';
import { waitFor } from './processes.ts';
import { nodeApp, tempWorkspace } from './workspace.ts';

/** An npm that never asks a registry, and prints nothing about audits, funding or updates. */
export const OFFLINE_NPMRC = 'offline=true\naudit=false\nfund=false\nupdate-notifier=false\n';

/**
 * A `preinstall` script for a project one folder below the workspace root: it prints `held-at-gate`, says it started
 * (`<root>/started`), then holds the install until the test opens the gate (`openGate`: `<root>/go`); going on, it
 * takes both away and prints `gate-opened`, so each opening lets exactly one install through. No sleep to race:
 * the test decides when the install goes on.
 */
export const GATED_PREINSTALL = 'echo held-at-gate; touch ../started; until [ -e ../go ]; do sleep 0.02; done; rm -f ../go ../started; echo gate-opened';

/** Resolves once an install with GATED_PREINSTALL is held at the gate (bounded: fails after `timeoutMs`). */
export function heldAtGate(root: string, timeoutMs = 15_000): Promise<true> {
  return waitFor(() => existsSync(join(root, 'started')), { timeoutMs, what: 'an install held at the gate' });
}

/** Lets one held install go on. */
export function openGate(root: string): Promise<void> {
  return writeFile(join(root, 'go'), '');
}

export type WorkspaceFiles = Record<string, string | Uint8Array>;

export interface JobApp {
  /** The workspace's real path. */
  readonly root: string;
  readonly app: WorkspaceApp;
  /** Intentic's client of the project calls: `jobs.client.install({dirs})`. */
  readonly client: IntenticClient['workspace'];
  /** The named terminal, if one is listed. */
  terminal(name: string): TerminalSession | undefined;
  /** The named terminal once it is listed (a job starts it after answering); fails after `timeoutMs`. */
  terminalOnceStarted(name: string, timeoutMs?: number): Promise<TerminalSession>;
  /** Every job and terminal stopped, the pty's children killed, the folder removed. Safe to call twice. */
  close(): Promise<void>;
}

/** One job app over a fresh workspace seeded with `files`; `overrides` go to the app (e.g. `templatesDir`). */
export async function startJobApp(files: WorkspaceFiles, overrides: Partial<WorkspaceAppOptions> = {}): Promise<JobApp> {
  const ws = await tempWorkspace(files);
  const pty = new NodePtyAdapter();
  const app = nodeApp(ws.root, { pty, jobHost: new NodeJobHost(), commands: new NodeCommandLookup(), ...overrides });
  const client = intenticClient(app).workspace;
  let closing: Promise<void> | undefined;
  return {
    root: ws.root,
    app,
    client,
    terminal: (name) => app.terminals!.get(name),
    terminalOnceStarted: (name, timeoutMs = 10_000) => waitFor(() => app.terminals!.get(name), { timeoutMs, what: `terminal ${name}` }),
    close() {
      closing ??= (async () => {
        await app.close();
        await pty.killAll();
        await ws.cleanup();
      })();
      return closing;
    },
  };
}

/**
 * A job app for each test of the enclosing file or describe: built before each test from `files` (or what the
 * function answers), closed after it. The returned object reads the current test's app.
 */
export function useJobApp(files: WorkspaceFiles | (() => WorkspaceFiles), overrides: Partial<WorkspaceAppOptions> | (() => Partial<WorkspaceAppOptions>) = {}): JobApp {
  let current: JobApp | undefined;
  beforeEach(async () => {
    current = await startJobApp(typeof files === 'function' ? files() : files, typeof overrides === 'function' ? overrides() : overrides);
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  const now = (): JobApp => {
    if (current === undefined) throw new Error('useJobApp: there is an app only while a test runs');
    return current;
  };
  return {
    get root() {
      return now().root;
    },
    get app() {
      return now().app;
    },
    get client() {
      return now().client;
    },
    terminal: (name) => now().terminal(name),
    terminalOnceStarted: (name, timeoutMs) => now().terminalOnceStarted(name, timeoutMs),
    close: () => now().close(),
  };
}
