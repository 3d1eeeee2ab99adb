import { WorkspaceClientError } from '../../http-client.ts';
import { h, replaceChildren } from '../dom.ts';
import { messageOf } from '../shared/errors.ts';
import type { PanelContext } from '../shell/panel-context.ts';
import { TerminalTab, terminalTheme } from './terminal-tab.ts';
import './terminals.css';

/** Names the panel gives the terminals it starts: `panel-1`, `panel-2`, … (the lowest number free on the daemon). */
const NAME_PREFIX = 'panel-';

type TerminalInfo = { name: string; pid: number };

/**
 * The terminals in the bottom pane (docs/panel.md#terminals): one tab per named terminal of the daemon
 * (`GET /terminals`, every one of them, whoever started it), "+" starts a login shell (`POST /terminals`), a tab's
 * close button ends it (`DELETE /terminals/{name}`). Each tab is a TerminalTab on the terminal socket.
 * Mounting only draws the pane; listing and attaching happen in the background.
 */
export async function mountTerminals(ctx: PanelContext): Promise<void> {
  new TerminalPane(ctx).start();
}

class TerminalPane {
  readonly #ctx: PanelContext;
  readonly #tabs = new Map<string, TerminalTab>();
  readonly #strip = h('div', { class: 'terminal-tabs', role: 'tablist', 'aria-label': 'terminals' });
  readonly #add = h('button', { class: 'terminal-add', type: 'button', title: 'New terminal', 'aria-label': 'New terminal', disabled: true }, '+');
  readonly #body = h('div', { class: 'terminal-body' });
  readonly #message = h('p', { class: 'terminal-message' });
  #selected: TerminalTab | undefined;
  #creating = false;

  constructor(ctx: PanelContext) {
    this.#ctx = ctx;
    this.#add.addEventListener('click', () => void this.create());
    this.#strip.addEventListener('keydown', (event) => this.#onStripKey(event));
    replaceChildren(ctx.shell.bottom, h('div', { class: 'terminal-bar' }, this.#strip, this.#add), this.#body);
    ctx.shell.bottom.classList.add('terminals');
    this.#body.append(this.#message);
    this.#say('Loading terminals…');
    // The pane follows its region: the shown terminal is fitted, and the pty told its new size.
    new ResizeObserver(() => this.#selected?.fit()).observe(this.#body);
    // The terminals take the panel's colours, also when the system switches between light and dark.
    matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
      for (const tab of this.#tabs.values()) tab.term.options.theme = terminalTheme();
    });
  }

  /** A runtime without a pty: no terminals at all, so nothing to start either. */
  #unavailable(why: string): void {
    this.#add.remove();
    this.#ctx.shell.bottom.dataset.unavailable = 'true';
    this.#say(`Terminals are not available on this workspace server: ${why}`);
  }

  /** Lists the daemon's terminals and attaches each (in the background: the panel's start does not wait). */
  start(): void {
    void this.#load();
  }

  async #load(): Promise<void> {
    const { terminals: hasPty, webSockets } = this.#ctx.capabilities;
    if (!hasPty || !webSockets) {
      this.#unavailable('this runtime has no pseudo-terminals');
      return;
    }
    let terminals: TerminalInfo[];
    try {
      terminals = (await this.#ctx.client.call('GET /terminals')).terminals;
    } catch (error) {
      if (error instanceof WorkspaceClientError && error.status === 501) {
        this.#unavailable(error.message);
        return;
      }
      this.#add.disabled = false;
      this.#say(`The terminals could not be listed: ${messageOf(error)}`);
      this.#ctx.status(`Terminals: ${messageOf(error)}`, 'error');
      return;
    }
    this.#adopt(terminals);
    this.#add.disabled = false;
    this.#ctx.shell.bottom.dataset.loaded = 'true';
    this.#updateEmpty();
  }

  /** A tab for each listed terminal the pane does not show yet, attached at once; the first becomes the shown one. */
  #adopt(terminals: TerminalInfo[]): void {
    for (const info of terminals) {
      if (this.#tabs.has(info.name)) continue;
      const tab = this.#addTab(info.name, info.pid);
      if (!this.#selected) this.select(tab, { focus: false });
      tab.connect();
    }
  }

  /** "+": a login shell under the lowest free `panel-N`, sized to the pane, shown and focused. */
  async create(): Promise<void> {
    if (this.#creating) return;
    this.#creating = true;
    this.#add.disabled = true;
    try {
      // A fresh list: names taken by other clients (or exited, not yet reaped) are not free, and their tabs appear too.
      const listed = (await this.#ctx.client.call('GET /terminals')).terminals;
      this.#adopt(listed);
      const taken = new Set([...listed.map((info) => info.name), ...this.#tabs.keys()]);
      let number = 1;
      for (let attempt = 0; ; attempt++) {
        while (taken.has(`${NAME_PREFIX}${number}`)) number++;
        const name = `${NAME_PREFIX}${number}`;
        const tab = this.#addTab(name, undefined);
        this.select(tab, { focus: false });
        const { cols, rows } = tab.fit();
        try {
          const info = await this.#ctx.client.call('POST /terminals', { body: { name, cols, rows } });
          tab.connect(info.pid);
          this.select(tab, { focus: true });
          break;
        } catch (error) {
          this.#removeTab(tab);
          // Taken meanwhile by another client: the next number.
          if (error instanceof WorkspaceClientError && error.status === 409 && attempt < 10) {
            taken.add(name);
            continue;
          }
          throw error;
        }
      }
    } catch (error) {
      this.#ctx.status(`Could not start a terminal: ${messageOf(error)}`, 'error');
    } finally {
      this.#creating = false;
      this.#add.disabled = false;
      this.#updateEmpty();
    }
  }

  /** Closing a tab ends its terminal on the daemon (DELETE); one already gone from it just leaves the pane. */
  async close(tab: TerminalTab): Promise<void> {
    if (tab.state !== 'gone') {
      try {
        await this.#ctx.client.call('DELETE /terminals/{name}', { params: { name: tab.name } });
      } catch (error) {
        if (!(error instanceof WorkspaceClientError && error.status === 404)) {
          this.#ctx.status(`Could not close terminal ${tab.name}: ${messageOf(error)}`, 'error');
          return;
        }
      }
    }
    this.#removeTab(tab);
  }

  select(tab: TerminalTab, { focus }: { focus: boolean }): void {
    for (const other of this.#tabs.values()) {
      const shown = other === tab;
      other.tab.setAttribute('aria-selected', String(shown));
      other.tab.tabIndex = shown ? 0 : -1;
      other.panel.hidden = !shown;
    }
    this.#selected = tab;
    tab.shown();
    if (focus) tab.term.focus();
  }

  #addTab(name: string, pid: number | undefined): TerminalTab {
    const tab = new TerminalTab(this.#ctx, name, pid, () => this.#updateEmpty());
    tab.tab.addEventListener('click', () => this.select(tab, { focus: true }));
    tab.closeButton.addEventListener('click', () => void this.close(tab));
    this.#tabs.set(name, tab);
    this.#strip.append(tab.handle);
    this.#body.append(tab.panel);
    this.#updateEmpty();
    return tab;
  }

  /** Takes a tab out of the pane; if it was the shown one, its neighbour is shown (and gets the focus it had). */
  #removeTab(tab: TerminalTab): void {
    const order = [...this.#tabs.values()];
    const index = order.indexOf(tab);
    const hadFocus = tab.handle.contains(document.activeElement) || tab.panel.contains(document.activeElement);
    this.#tabs.delete(tab.name);
    tab.dispose();
    if (this.#selected === tab) {
      this.#selected = undefined;
      const next = order[index + 1] ?? order[index - 1];
      if (next) this.select(next, { focus: hadFocus });
      else if (hadFocus) this.#add.focus();
    }
    this.#updateEmpty();
  }

  /** Arrow keys, Home and End move between the tabs (and show the one they land on); Delete closes the tab. */
  #onStripKey(event: KeyboardEvent): void {
    const order = [...this.#tabs.values()];
    const index = order.findIndex((tab) => tab.tab === event.target);
    if (index < 0) return;
    if (event.key === 'Delete' && !event.altKey && !event.ctrlKey && !event.metaKey && !event.shiftKey) {
      event.preventDefault();
      void this.close(order[index]!);
      return;
    }
    const to =
      event.key === 'ArrowRight' ? order[(index + 1) % order.length]
      : event.key === 'ArrowLeft' ? order[(index - 1 + order.length) % order.length]
      : event.key === 'Home' ? order[0]
      : event.key === 'End' ? order[order.length - 1]
      : undefined;
    if (!to) return;
    event.preventDefault();
    this.select(to, { focus: false });
    to.tab.focus();
  }

  #say(text: string): void {
    this.#message.textContent = text;
    this.#message.hidden = false;
  }

  #updateEmpty(): void {
    if (this.#tabs.size > 0) this.#message.hidden = true;
    else if (this.#ctx.shell.bottom.dataset.loaded === 'true') this.#say('No terminals. Press + to start one.');
  }
}
