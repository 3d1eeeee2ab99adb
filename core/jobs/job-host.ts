/**
 * The Node-only powers the job engine needs (installs, dev servers, test runs), behind one type-only interface so
 * core/jobs stays edge-clean. The Node implementation is adapters/process/node-job-host.ts; it reaches the engine
 * through the app's options (runtime/node/server.ts passes it).
 */
export interface JobHost {
  /**
   * The whole environment of a job's child (docs/intentic-projects.md#jobs-and-their-terminals): the daemon's, minus every
   * `npm_*` variable (an `npm start --silent` daemon would mute its children's npm), with `PATH` led by
   * `<cwd>/node_modules/.bin`, and `extra` on top.
   */
  env(cwd: string, extra?: Record<string, string>): Record<string, string>;
  /** A TCP port nothing listens on now (the dev server's `PORT`). */
  freePort(): Promise<number>;
  /**
   * Kills the process tree under `pid`: its descendants (also those that left its process group or session, e.g.
   * by setsid), its process group and session. SIGTERM first, SIGKILL to whatever is left after `graceMs`;
   * resolves once every one of them is gone.
   */
  killTree(pid: number, options: { graceMs: number }): Promise<void>;
  /**
   * Whether `GET /` on 127.0.0.1:`port` gets any HTTP answer within `timeoutMs` (plain HTTP, then HTTPS
   * accepting self-signed certificates). Never rejects.
   */
  probe(port: number, timeoutMs: number): Promise<boolean>;
}
