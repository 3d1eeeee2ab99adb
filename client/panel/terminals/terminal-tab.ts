import { FitAddon } from '@xterm/addon-fit';
import { Terminal, type ITheme } from '@xterm/xterm';
import { WorkspaceClientError } from '../../http-client.ts';
import { h } from '../dom.ts';
import type { PanelContext } from '../shell/panel-context.ts';

/** What a tab shows about its terminal: attaching, live, waiting to reattach, exited (with its code), or gone from the daemon. */
export type TerminalState = 'connecting' | 'live' | 'reconnecting' | 'exited' | 'gone';

/** Server → client text frames of the terminal socket (docs/terminals.md#the-terminal-socket). */
type ServerMessage = { type: 'attached'; from: number; end: number; truncated: boolean } | { type: 'exit'; code: number | null };

/** Waits between reattach attempts after a drop: quick at first, then at most every few seconds. */
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 5000;

let nextId = 0;

/**
 * One named terminal of the daemon in the panel: an xterm.js terminal fed by the terminal socket
 * (`GET /terminals/{name}`, docs/terminals.md#the-terminal-socket). It keeps the absolute offset of the last output
 * byte it handed to xterm, so a dropped socket reattaches with `?from=` that offset: every byte shows exactly once.
 * A fresh page attaches without `from` (the ring's start): a reload replays the history once.
 */
export class TerminalTab {
  readonly name: string;
  readonly tab: HTMLButtonElement;
  readonly closeButton: HTMLButtonElement;
  /** The tab and its close button, in the tab strip. */
  readonly handle: HTMLElement;
  readonly panel: HTMLElement;
  readonly term: Terminal;
  readonly #fit = new FitAddon();
  readonly #ctx: PanelContext;
  readonly #badge = h('span', { class: 'terminal-badge' });
  readonly #onState: (tab: TerminalTab) => void;
  /** The daemon's process id of this terminal: a different one under the same name is another terminal (the daemon restarted). */
  #pid: number | undefined;
  /** Offset one past the last output byte written to xterm; undefined until the first attach (then: replay from the ring's start). */
  #offset: number | undefined;
  #socket: WebSocket | undefined;
  #state: TerminalState = 'connecting';
  #exitCode: number | null = null;
  #retryMs = RETRY_FIRST_MS;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #disposed = false;

  constructor(ctx: PanelContext, name: string, pid: number | undefined, onState: (tab: TerminalTab) => void) {
    this.#ctx = ctx;
    this.name = name;
    this.#pid = pid;
    this.#onState = onState;
    const id = `terminal-${++nextId}`;
    this.tab = h(
      'button',
      { class: 'terminal-tab', type: 'button', role: 'tab', id: `${id}-tab`, 'aria-controls': `${id}-panel`, 'aria-selected': 'false', tabindex: '-1', 'data-terminal': name },
      h('span', { class: 'terminal-name' }, name),
      this.#badge,
    );
    // Not a tab stop inside the tab list (Delete on the tab closes it too, as in the editor's strip).
    this.closeButton = h('button', { class: 'terminal-close', type: 'button', tabindex: '-1', title: `Close terminal ${name} (ends it; Delete on the tab)`, 'aria-label': `Close terminal ${name}` }, '×');
    this.handle = h('span', { class: 'terminal-handle', role: 'presentation' }, this.tab, this.closeButton);
    const host = h('div', { class: 'terminal-host' });
    this.panel = h('div', { class: 'terminal-panel', role: 'tabpanel', id: `${id}-panel`, 'aria-labelledby': this.tab.id, 'data-terminal': name, hidden: true }, host);
    this.term = new Terminal({
      fontFamily: cssVariable('--mono') || 'monospace',
      fontSize: 13,
      cursorBlink: true,
      scrollback: 5000,
      theme: terminalTheme(),
    });
    this.term.loadAddon(this.#fit);
    this.term.open(host);
    this.term.onData((data) => this.#send({ type: 'input', data }));
    this.term.onResize(({ cols, rows }) => {
      this.#showSize();
      this.#send({ type: 'resize', cols, rows });
    });
    this.#showSize();
    this.#render();
  }

  get state(): TerminalState {
    return this.#state;
  }

  get exitCode(): number | null {
    return this.#exitCode;
  }

  /** The terminal's size for the pane as it is now (the tab must be shown to be measured). */
  fit(): { cols: number; rows: number } {
    if (!this.panel.hidden && this.panel.isConnected) {
      try {
        this.#fit.fit();
      } catch {
        // Not laid out yet (no size): the next resize fits it.
      }
    }
    return { cols: this.term.cols, rows: this.term.rows };
  }

  /** Shown: fit it to the pane, and tell the pty its size (another client may have resized it meanwhile). */
  shown(): void {
    this.fit();
    this.#send({ type: 'resize', cols: this.term.cols, rows: this.term.rows });
  }

  /** Starts attaching (the first attach of this page replays from the ring's start). */
  connect(pid?: number): void {
    if (pid !== undefined) this.#pid = pid;
    this.#open();
  }

  /** Stops for good: no reattach, the socket closed, xterm disposed, the DOM removed. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    clearTimeout(this.#retryTimer);
    const socket = this.#socket;
    this.#socket = undefined;
    socket?.close(1000);
    this.term.dispose();
    this.handle.remove();
    this.panel.remove();
  }

  #open(): void {
    if (this.#disposed) return;
    const query: Record<string, string> = this.#offset === undefined ? {} : { from: String(this.#offset) };
    const url = this.#ctx.tokenUrl(`/terminals/${encodeURIComponent(this.name)}`, query).replace(/^http/, 'ws');
    const socket = new WebSocket(url);
    socket.binaryType = 'arraybuffer';
    this.#socket = socket;
    let attached = false;
    let exited = false;
    socket.onmessage = (event) => {
      if (this.#socket !== socket) return;
      if (typeof event.data !== 'string') {
        const bytes = new Uint8Array(event.data as ArrayBuffer);
        this.#offset = (this.#offset ?? 0) + bytes.length;
        this.term.write(bytes);
        return;
      }
      const message = parseMessage(event.data);
      if (message?.type === 'attached') {
        attached = true;
        this.#attached(message);
      } else if (message?.type === 'exit') {
        exited = true;
        this.#exited(message.code);
      }
    };
    socket.onclose = () => {
      if (this.#socket !== socket) return;
      this.#socket = undefined;
      if (this.#disposed || exited) return;
      // Dropped (the network, a restart, too slow: 1013) or refused before attaching: reattach from where we are.
      if (attached) this.#retryMs = RETRY_FIRST_MS;
      this.#setState('reconnecting');
      this.#retryTimer = setTimeout(() => void this.#reattach(), this.#retryMs);
      this.#retryMs = Math.min(this.#retryMs * 2, RETRY_MAX_MS);
    };
  }

  #attached(message: { from: number; end: number; truncated: boolean }): void {
    const wanted = this.#offset;
    if (wanted !== undefined && message.truncated) this.#note(`[${message.from - wanted} bytes of output were lost while detached]`);
    else if (wanted === undefined && message.from > 0) this.#note('[earlier output is no longer kept]');
    this.#offset = message.from;
    this.#setState('live');
    // The shown terminal sizes the pty to this page; a hidden one does when it is shown (it has no size of its own yet).
    if (!this.panel.hidden) this.#send({ type: 'resize', cols: this.term.cols, rows: this.term.rows });
  }

  #exited(code: number | null): void {
    this.#exitCode = code;
    this.#note(code === null ? '[terminal ended]' : `[exited with code ${code}]`);
    this.term.write('\x1b[?25l'); // no cursor: nothing reads the keyboard any more
    this.term.options.disableStdin = true;
    this.#setState('exited');
  }

  /** Before reattaching: is it still the same terminal? Gone → say so; another one by that name → start over. */
  async #reattach(): Promise<void> {
    if (this.#disposed) return;
    if (!this.panel.isConnected) return; // the panel was taken down (signed out)
    try {
      const info = await this.#ctx.client.call('GET /terminals/{name}', { params: { name: this.name } });
      if (this.#disposed) return;
      if ((this.#pid !== undefined && info.pid !== this.#pid) || (this.#offset !== undefined && info.end < this.#offset)) {
        this.term.reset();
        this.#offset = undefined;
        this.#note('[a new terminal by this name]');
      }
      this.#pid = info.pid;
    } catch (error) {
      if (this.#disposed) return;
      if (error instanceof WorkspaceClientError && error.status === 404) {
        this.#note('[this terminal is gone from the workspace server]');
        this.#setState('gone');
        return;
      }
      // Unreachable for now: try again later.
      this.#retryTimer = setTimeout(() => void this.#reattach(), this.#retryMs);
      this.#retryMs = Math.min(this.#retryMs * 2, RETRY_MAX_MS);
      return;
    }
    this.#open();
  }

  #send(message: { type: 'input'; data: string } | { type: 'resize'; cols: number; rows: number }): void {
    const socket = this.#socket;
    if (socket?.readyState === WebSocket.OPEN && this.#state === 'live') socket.send(JSON.stringify(message));
  }

  /** A line of the panel's own in the terminal (dim), not part of the terminal's output. */
  #note(text: string): void {
    this.term.write(`\r\n\x1b[2m${text}\x1b[0m\r\n`);
  }

  #setState(state: TerminalState): void {
    this.#state = state;
    this.#render();
    this.#onState(this);
  }

  #render(): void {
    this.tab.dataset.state = this.#state;
    this.panel.dataset.state = this.#state;
    const badge =
      this.#state === 'exited'
        ? this.#exitCode === null
          ? 'ended'
          : `exit ${this.#exitCode}`
        : this.#state === 'gone'
          ? 'gone'
          : this.#state === 'live'
            ? ''
            : '…';
    this.#badge.textContent = badge;
    this.#badge.hidden = badge === '';
    this.tab.title = `${this.name}: ${this.#state === 'exited' ? (this.#exitCode === null ? 'ended' : `exited with code ${this.#exitCode}`) : this.#state}`;
    if (this.#state === 'exited') this.panel.dataset.exitCode = String(this.#exitCode);
  }

  #showSize(): void {
    this.panel.dataset.cols = String(this.term.cols);
    this.panel.dataset.rows = String(this.term.rows);
  }
}

function parseMessage(text: string): ServerMessage | undefined {
  try {
    const message = JSON.parse(text) as ServerMessage;
    return message.type === 'attached' || message.type === 'exit' ? message : undefined;
  } catch {
    return undefined;
  }
}

function cssVariable(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

/** The panel's colours (light or dark, as the system prefers) for xterm's background, text and cursor. */
export function terminalTheme(): ITheme {
  const background = cssVariable('--bg') || '#ffffff';
  const foreground = cssVariable('--fg') || '#1f2328';
  return { background, foreground, cursor: foreground, cursorAccent: background, selectionBackground: cssVariable('--selected') || '#dbe9fb' };
}
