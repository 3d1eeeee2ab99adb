/**
 * The editor area (docs/panel.md#editor): files open in tabs; text in CodeMirror, images, audio and video previewed
 * from the media route (a ticket in the URL, never the token), text above the read cap paged read-only, anything else offered for download. Saves are
 * conditional on the version the tab read (`If-Match`), so a file changed elsewhere is never overwritten unseen:
 * the tab shows the conflict and lets the user keep theirs, keep mine, or compare the two.
 */
import './editor.css';
import { h, replaceChildren } from '../dom.ts';
import type { PanelEventMap } from '../shell/events.ts';
import type { OpenAt, PanelContext } from '../shell/panel-context.ts';
import type { CodeEditor } from './code-editor.ts';
import { formatOpenAddress, parseOpenAddress } from '../shell/address.ts';
import { messageOf } from '../shared/errors.ts';
import { baseName, isUnder, normalisePath } from '../shared/paths.ts';
import { formatBytes, looksBinary, mediaKindOf, SNIFF_BYTES, TEXT_CAP, type MediaKind } from './file-kind.ts';

type CodeModule = typeof import('./code-editor.ts');

/** How much of a large file one "load more" reads (`GET /workspace/file` windows). */
const PAGE_BYTES = 512 * 1024;

type TabKind = 'loading' | 'text' | 'paged' | MediaKind | 'binary' | 'error';

/** What a save found on disk instead of the version the tab read. */
interface Conflict {
  deleted: boolean;
  /** The disk's text (absent when deleted, or no longer readable as text). */
  theirs?: string;
  /** The disk's version, for "keep mine". */
  etag?: string;
  /** Why the disk's version cannot be shown, when it cannot. */
  unreadable?: string;
}

interface Tab {
  readonly path: string;
  readonly item: HTMLElement;
  readonly button: HTMLButtonElement;
  readonly body: HTMLElement;
  /** Banners above the content: the conflict, "changed on disk", the close confirmation. */
  readonly notice: HTMLElement;
  readonly content: HTMLElement;
  readonly compare: HTMLElement;
  kind: TabKind;
  editor?: CodeEditor;
  /** The version of the file the editor's text came from (`ETag` of the read or the last save). */
  etag?: string;
  disk: 'same' | 'changed' | 'deleted';
  /** A line for the bar ("reloaded from disk"), cleared by the next edit. */
  note?: string;
  line: number;
  column: number;
  loaded: Promise<void>;
  /** Counts loads: a load whose number is no longer this one (a newer load, or the tab closed) drops its answer. */
  loadSeq: number;
  saving?: Promise<void>;
  checking?: Promise<void>;
  recheck: boolean;
  /** Set while the editor's text is replaced from disk (not an edit of the user's). */
  replacing: boolean;
  paged?: { size: number; next: number; info: HTMLElement; more: HTMLButtonElement };
  conflict?: Conflict;
  comparison?: { destroy(): void };
  /** Set while a comparison is being built (a second click meanwhile does nothing). */
  comparing: boolean;
}

export function mountEditor(ctx: PanelContext): void {
  new EditorArea(ctx).mount();
}

let nextId = 0;

class EditorArea {
  readonly #ctx: PanelContext;
  readonly #tabs = new Map<string, Tab>();
  #active: Tab | undefined;
  #code: Promise<CodeModule> | undefined;

  readonly #strip = h('div', { class: 'ed-tabs', role: 'tablist', 'aria-label': 'open files' });
  readonly #path = h('span', { class: 'ed-path' });
  readonly #state = h('span', { class: 'ed-state' });
  readonly #position = h('span', { class: 'ed-pos' });
  readonly #saveButton = h('button', { type: 'button', class: 'ed-save', title: 'Save (Ctrl+S / ⌘S)', disabled: true }, 'Save');
  readonly #bar = h('div', { class: 'ed-bar' }, this.#path, this.#state, this.#position, this.#saveButton);
  readonly #bodies = h('div', { class: 'ed-bodies' });
  readonly #empty = h('div', { class: 'ed-empty' }, 'No file open. Pick one in Files, or open one with quick open.');

  constructor(ctx: PanelContext) {
    this.#ctx = ctx;
  }

  mount(): void {
    const area = this.#ctx.shell.editorArea;
    area.classList.add('ed-area');
    this.#bar.hidden = true;
    replaceChildren(area, this.#strip, this.#bar, this.#bodies);
    this.#bodies.append(this.#empty);
    this.#saveButton.addEventListener('click', () => {
      if (this.#active) void this.#saveTab(this.#active);
    });
    // Ctrl/Cmd-S anywhere in the area (the editor has its own binding; this covers its banners and buttons).
    area.addEventListener('keydown', (event) => {
      if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 's') {
        event.preventDefault();
        if (this.#active) void this.#saveTab(this.#active);
      }
    });
    // The tab strip's keys (a roving tab stop): arrows, Home and End move between tabs; Delete closes one.
    this.#strip.addEventListener('keydown', (event) => {
      const order = [...this.#tabs.values()];
      const index = order.findIndex((tab) => tab.button === document.activeElement);
      if (index < 0) return;
      const target = { ArrowLeft: index - 1, ArrowRight: index + 1, Home: 0, End: order.length - 1 }[event.key];
      if (event.key === 'Delete') {
        event.preventDefault();
        this.#requestClose(order[index]!);
      } else if (target !== undefined && order[target]) {
        event.preventDefault();
        this.#activate(order[target], false);
        this.#setAddress(order[target]);
        order[target].button.focus();
      }
    });
    this.#ctx.setFileOpener((path, at) => this.open(path, at));
    this.#ctx.events.on('fs-change', (change) => this.#onDiskChange(change));
    window.addEventListener('hashchange', () => this.#openFromAddress());
    this.#openFromAddress();
  }

  #openFromAddress(): void {
    const target = parseOpenAddress(location.hash);
    if (target) void this.open(target.path, { ...(target.line === undefined ? {} : { line: target.line }), ...(target.column === undefined ? {} : { column: target.column }) });
  }

  /** Opens `path` (or shows its tab) and puts the caret on `at.line`. */
  async open(rawPath: string, at: OpenAt = {}): Promise<void> {
    const path = normalisePath(rawPath);
    // The file takes the keyboard once loaded only if nothing else took it meanwhile (a name typed in the tree, a
    // terminal, the chat box): a load that ends late must not pull the focus from where the user went on working.
    const focusedAtOpen = document.activeElement;
    let tab = this.#tabs.get(path);
    if (!tab) {
      tab = this.#createTab(path);
      tab.loaded = this.#load(tab);
    } else if (tab.kind === 'error') {
      tab.loaded = this.#load(tab); // opened again: perhaps it is there now
    }
    this.#activate(tab, false);
    // The latest load: one started meanwhile (a change on disk, "Try again") replaces the one awaited.
    let loaded: Promise<void>;
    do {
      loaded = tab.loaded;
      await loaded;
    } while (loaded !== tab.loaded && this.#tabs.get(path) === tab);
    if (this.#tabs.get(path) !== tab) return;
    const focusStayed = document.activeElement === focusedAtOpen || document.activeElement === document.body || this.#ctx.shell.editorArea.contains(document.activeElement);
    await this.#reveal(tab, at, focusStayed);
  }

  // ---- tabs ----

  #createTab(path: string): Tab {
    const id = `ed-${++nextId}`;
    const button = h(
      'button',
      { type: 'button', role: 'tab', class: 'ed-tab-title', id: `${id}-tab`, 'aria-controls': `${id}-panel`, 'aria-selected': 'false', title: path },
      h('span', { class: 'ed-tab-name' }, baseName(path) || path),
      h('span', { class: 'ed-dirty', title: 'unsaved changes', 'aria-label': 'unsaved changes' }, '●'),
      h('span', { class: 'ed-disk', title: 'changed on disk', 'aria-label': 'changed on disk' }, '!'),
    );
    // Not a tab stop of its own: the strip is one (Delete closes the focused tab).
    const close = h('button', { type: 'button', class: 'ed-close', tabindex: '-1', title: `Close ${path}`, 'aria-label': `Close ${path}` }, '×');
    const item = h('div', { class: 'ed-tab', role: 'presentation', 'data-path': path }, button, close);
    const notice = h('div', { class: 'ed-notice' });
    const content = h('div', { class: 'ed-content' });
    const compare = h('div', { class: 'ed-compare', hidden: true });
    const body = h('div', { class: 'ed-body', role: 'tabpanel', id: `${id}-panel`, 'aria-labelledby': button.id, 'data-path': path, hidden: true }, notice, content, compare);
    const tab: Tab = { path, item, button, body, notice, content, compare, kind: 'loading', disk: 'same', line: 1, column: 1, loaded: Promise.resolve(), loadSeq: 0, comparing: false, recheck: false, replacing: false };
    button.addEventListener('click', () => this.#activate(tab, true));
    button.addEventListener('auxclick', (event) => {
      if (event.button === 1) this.#requestClose(tab);
    });
    close.addEventListener('click', () => this.#requestClose(tab));
    this.#strip.append(item);
    this.#bodies.append(body);
    this.#tabs.set(path, tab);
    this.#empty.hidden = true;
    return tab;
  }

  #activate(tab: Tab, byUser: boolean): void {
    for (const other of this.#tabs.values()) {
      const shown = other === tab;
      other.body.hidden = !shown;
      other.item.classList.toggle('active', shown);
      other.button.setAttribute('aria-selected', String(shown));
      other.button.tabIndex = shown ? 0 : -1;
    }
    this.#active = tab;
    this.#renderBar();
    if (byUser) {
      this.#setAddress(tab);
      tab.editor?.focus();
    }
  }

  /** The address names the active file (a reload reopens it), with the caret's line once it moved. */
  #setAddress(tab: Tab | undefined): void {
    const hash = tab ? formatOpenAddress(tab.line > 1 ? { path: tab.path, line: tab.line } : { path: tab.path }) : '';
    if (location.hash !== hash) history.replaceState(history.state, '', hash || location.pathname + location.search);
  }

  #requestClose(tab: Tab): void {
    if (tab.editor && tab.kind === 'text' && tab.editor.dirty) {
      this.#activate(tab, true);
      const textId = `${tab.body.id}-confirm-text`;
      const box = h(
        'div',
        { class: 'ed-banner ed-confirm', role: 'alertdialog', 'aria-label': 'unsaved changes', 'aria-describedby': textId },
        h('span', { id: textId }, `${tab.path} has unsaved changes.`),
      );
      const discard = h('button', { type: 'button' }, 'Discard and close');
      const cancel = h('button', { type: 'button' }, 'Cancel');
      discard.addEventListener('click', () => this.#close(tab));
      cancel.addEventListener('click', () => box.remove());
      box.append(discard, cancel);
      tab.notice.querySelector('.ed-confirm')?.remove();
      tab.notice.append(box);
      cancel.focus();
      return;
    }
    this.#close(tab);
  }

  #close(tab: Tab): void {
    const order = [...this.#tabs.values()];
    const index = order.indexOf(tab);
    tab.loadSeq++; // a load under way drops its answer
    tab.editor?.destroy();
    tab.editor = undefined;
    tab.paged = undefined;
    tab.comparison?.destroy();
    tab.comparison = undefined;
    tab.item.remove();
    tab.body.remove();
    this.#tabs.delete(tab.path);
    if (this.#active === tab) {
      const next = order[index + 1] ?? order[index - 1];
      this.#active = undefined;
      if (next && next !== tab) this.#activate(next, true);
      else {
        this.#setAddress(undefined);
        this.#renderBar();
      }
    }
    this.#empty.hidden = this.#tabs.size > 0;
  }

  #renderBar(): void {
    const tab = this.#active;
    this.#bar.hidden = !tab;
    if (!tab) return;
    this.#path.textContent = tab.path;
    const dirty = tab.kind === 'text' && !!tab.editor?.dirty;
    const states: string[] = [];
    if (dirty) states.push('unsaved changes');
    if (tab.disk === 'changed') states.push('changed on disk');
    if (tab.disk === 'deleted') states.push('deleted on disk');
    if (tab.note) states.push(tab.note);
    if (tab.kind === 'paged') states.push('read-only');
    this.#state.textContent = states.join(' · ');
    this.#position.textContent = tab.editor ? `Ln ${tab.line}, Col ${tab.column}` : '';
    this.#saveButton.hidden = tab.kind !== 'text';
    this.#saveButton.disabled = !(dirty || (tab.kind === 'text' && tab.disk === 'deleted'));
  }

  /** The tab's markers (unsaved, changed on disk) and, for the active one, the bar. */
  #refresh(tab: Tab): void {
    tab.item.dataset.dirty = String(tab.kind === 'text' && !!tab.editor?.dirty);
    tab.item.dataset.disk = tab.disk;
    tab.item.dataset.kind = tab.kind;
    if (tab === this.#active) this.#renderBar();
  }

  // ---- loading ----

  #codeModule(): Promise<CodeModule> {
    return (this.#code ??= import('./code-editor.ts'));
  }

  #setContent(tab: Tab, kind: TabKind, ...nodes: Node[]): void {
    tab.editor?.destroy();
    tab.editor = undefined;
    tab.paged = undefined;
    tab.kind = kind;
    replaceChildren(tab.content, ...nodes);
    this.#refresh(tab);
  }

  /** Whether load number `seq` is still the tab's latest and the tab still open: checked after every await. */
  #live(tab: Tab, seq: number): boolean {
    return tab.loadSeq === seq && this.#tabs.get(tab.path) === tab;
  }

  /**
   * (Re)loads the tab. Each load takes a new number; one that was overtaken (another load started, or the tab
   * closed) drops whatever it was given, builds nothing, and reports nothing.
   */
  async #load(tab: Tab): Promise<void> {
    const seq = ++tab.loadSeq;
    this.#setContent(tab, 'loading', h('p', { class: 'ed-loading' }, 'Loading…'));
    try {
      const probe = await this.#probe(tab.path);
      if (!this.#live(tab, seq)) return;
      if ('error' in probe) return this.#showError(tab, probe.error);
      if (!probe.present) return this.#showError(tab, 'no such file');
      const sniff = probe.size === 0 ? { contentType: null, binary: false } : await this.#sniff(tab.path, probe.size);
      if (!this.#live(tab, seq)) return;
      if ('error' in sniff) return this.#showError(tab, sniff.error);
      const media = mediaKindOf(tab.path, sniff.contentType, sniff.binary);
      if (media) return await this.#showMedia(tab, seq, media, probe.size);
      if (sniff.binary) return await this.#showBinary(tab, seq, probe.size, sniff.contentType);
      if (probe.size > TEXT_CAP) return await this.#showPaged(tab, seq);
      const read = await this.#readText(tab.path);
      if (!this.#live(tab, seq)) return;
      if (read.ok) return await this.#showText(tab, seq, read.content, read.etag);
      if (read.status === 413) return await this.#showPaged(tab, seq);
      if (read.status === 415) return await this.#showBinary(tab, seq, probe.size, sniff.contentType);
      return this.#showError(tab, read.message);
    } catch (error) {
      if (this.#live(tab, seq)) this.#showError(tab, messageOf(error));
    }
  }

  /**
   * Whether the file is there, its size and version, without reading it: an empty window of `GET /workspace/file`
   * at the far end. A missing file is a 200 `{present: false}` there, so checking (on open, before a save, on a
   * change on disk) puts no failed request in the console; the version is the same tag the read and write use.
   */
  async #probe(path: string): Promise<{ present: false } | { present: true; size: number; etag: string } | { error: string }> {
    const response = await this.#ctx.client.request('GET /workspace/file', { query: { path, offset: String(Number.MAX_SAFE_INTEGER), limit: '1' } });
    if (!response.ok) return { error: await errorText(response) };
    const answer = (await response.json()) as { present: boolean; size?: number };
    if (!answer.present) return { present: false };
    return { present: true, size: answer.size ?? 0, etag: response.headers.get('etag') ?? '' };
  }

  /** The first bytes (a range of the raw route): the sniffed content type, and whether the file is text. */
  async #sniff(path: string, size: number): Promise<{ contentType: string | null; binary: boolean } | { error: string }> {
    const response = await this.#ctx.client.request('GET /api/raw', { query: { path }, headers: { range: `bytes=0-${SNIFF_BYTES - 1}` } });
    if (!response.ok) return { error: await errorText(response) };
    const bytes = new Uint8Array(await response.arrayBuffer());
    return { contentType: response.headers.get('content-type'), binary: looksBinary(bytes, bytes.length >= size) };
  }

  async #readText(path: string): Promise<{ ok: true; content: string; etag: string } | { ok: false; status: number; message: string }> {
    const response = await this.#ctx.client.request('GET /api/file', { query: { path } });
    if (!response.ok) return { ok: false, status: response.status, message: await errorText(response) };
    const body = (await response.json()) as { content: string };
    return { ok: true, content: body.content, etag: response.headers.get('etag') ?? '' };
  }

  async #showText(tab: Tab, seq: number, content: string, etag: string): Promise<void> {
    const { CodeEditor } = await this.#codeModule();
    if (!this.#live(tab, seq)) return;
    const host = h('div', { class: 'ed-code' });
    this.#setContent(tab, 'text', host);
    tab.etag = etag;
    tab.disk = 'same';
    tab.line = 1;
    tab.column = 1;
    tab.editor = new CodeEditor({
      parent: host,
      path: tab.path,
      doc: content,
      onDocChange: () => {
        if (!tab.replacing) {
          // An edit after a silent reload: the disk's change is taken in, the markers go.
          tab.note = undefined;
          if (tab.disk === 'changed' && !tab.conflict) tab.disk = 'same';
        }
        this.#refresh(tab);
      },
      onCaret: (line, column) => this.#caret(tab, line, column),
      onSave: () => void this.#saveTab(tab),
    });
    this.#refresh(tab);
  }

  #caret(tab: Tab, line: number, column: number): void {
    const moved = line !== tab.line;
    tab.line = line;
    tab.column = column;
    if (tab !== this.#active) return;
    this.#position.textContent = `Ln ${line}, Col ${column}`;
    if (moved) this.#setAddress(tab);
  }

  async #reveal(tab: Tab, at: OpenAt, takeFocus: boolean): Promise<void> {
    const editor = tab.editor;
    if (!editor) return;
    if (at.line === undefined) {
      if (tab === this.#active && takeFocus) editor.focus();
      return;
    }
    // A paged file reads on until the line is there (or the file ends).
    while (tab.kind === 'paged' && tab.paged && at.line > editor.lineCount() && tab.paged.next < tab.paged.size) {
      if (!(await this.#loadPage(tab))) break;
    }
    if (tab.editor !== editor) return; // reloaded or closed meanwhile
    editor.goTo(at.line, at.column, tab === this.#active && takeFocus);
  }

  async #showPaged(tab: Tab, seq: number): Promise<void> {
    const { CodeEditor } = await this.#codeModule();
    if (!this.#live(tab, seq)) return;
    const info = h('span', { class: 'ed-paged-info' });
    const more = h('button', { type: 'button', class: 'ed-more' }, 'Load more');
    const host = h('div', { class: 'ed-code' });
    this.#setContent(tab, 'paged', h('div', { class: 'ed-banner ed-paged-bar' }, info, more), host);
    tab.line = 1;
    tab.column = 1;
    tab.editor = new CodeEditor({ parent: host, path: tab.path, doc: '', readOnly: true, onCaret: (line, column) => this.#caret(tab, line, column) });
    tab.paged = { size: 0, next: 0, info, more };
    more.addEventListener('click', () => void this.#loadPage(tab));
    await this.#loadPage(tab);
  }

  /** Reads the next window of a paged file and appends it. */
  async #loadPage(tab: Tab): Promise<boolean> {
    const paged = tab.paged;
    const editor = tab.editor;
    if (!paged || !editor) return false;
    const seq = tab.loadSeq;
    // Still this page's tab, load and editor: a reload or a close meanwhile drops the answer.
    const live = () => this.#live(tab, seq) && tab.paged === paged && tab.editor === editor;
    paged.more.disabled = true;
    try {
      const response = await this.#ctx.client.request('GET /workspace/file', { query: { path: tab.path, offset: String(paged.next), limit: String(PAGE_BYTES) } });
      if (!response.ok) {
        const message = await errorText(response);
        if (!live()) return false;
        if (response.status === 415 && paged.next === 0) await this.#showBinary(tab, seq, paged.size, null);
        else this.#showError(tab, message);
        return false;
      }
      const window = (await response.json()) as { present: boolean; content?: string; size?: number; offset?: number; bytes?: number };
      if (!live()) return false;
      if (!window.present || window.content === undefined) {
        this.#showError(tab, 'the file no longer exists');
        return false;
      }
      editor.append(window.content);
      paged.next = (window.offset ?? 0) + (window.bytes ?? 0);
      paged.size = window.size ?? paged.next;
      tab.etag = response.headers.get('etag') ?? tab.etag;
      const done = paged.next >= paged.size;
      paged.info.textContent = `${formatBytes(paged.size)}: too large to edit here, shown read-only — ${done ? 'all of it' : `the first ${formatBytes(paged.next)}`}.`;
      tab.content.dataset.loadedBytes = String(paged.next);
      tab.content.dataset.size = String(paged.size);
      paged.more.hidden = done;
      this.#refresh(tab);
      return true;
    } catch (error) {
      if (live()) this.#ctx.status(`Could not read ${tab.path}: ${messageOf(error)}`, 'error');
      return false;
    } finally {
      paged.more.disabled = false;
    }
  }

  /**
   * A media ticket for `path` (docs/intentic.md#media): `/workspace/media` URLs that the browser fetches itself
   * (an img/video src, a download link) without the token in them — the ticket is bound to this one file and
   * expires (an hour by default), so a copied link or the history does not carry the panel's token.
   */
  async #mediaUrls(path: string): Promise<{ src: string; download: string }> {
    const { ticket } = await this.#ctx.client.call('POST /workspace/media-ticket', { body: { path } });
    const url = (download: boolean) => {
      const target = new URL(`${this.#ctx.baseUrl}/workspace/media`, location.href);
      target.searchParams.set('path', path);
      target.searchParams.set('ticket', ticket);
      if (download) target.searchParams.set('download', '1');
      return target.href;
    };
    return { src: url(false), download: url(true) };
  }

  #downloadLink(path: string, href: string): HTMLAnchorElement {
    return h('a', { class: 'ed-download', href, download: baseName(path) }, `Download ${baseName(path)}`);
  }

  async #showMedia(tab: Tab, seq: number, kind: MediaKind, size: number): Promise<void> {
    const urls = await this.#mediaUrls(tab.path);
    if (!this.#live(tab, seq)) return;
    const src = urls.src;
    const info = h('p', { class: 'ed-media-info' }, formatBytes(size));
    const element =
      kind === 'image'
        ? h('img', { class: 'ed-image', src, alt: tab.path })
        : h(kind, { class: `ed-${kind}`, src, controls: true, preload: 'metadata' });
    element.addEventListener('load', () => {
      if (!(element instanceof HTMLImageElement)) return;
      info.textContent = `${formatBytes(size)} · ${element.naturalWidth} × ${element.naturalHeight} px`;
      // An icon-sized image is drawn larger, its pixels kept sharp.
      const zoom = Math.min(8, Math.floor(128 / Math.max(element.naturalWidth, element.naturalHeight, 1)));
      if (zoom > 1) {
        element.style.width = `${element.naturalWidth * zoom}px`;
        element.classList.add('ed-zoomed');
      }
    });
    element.addEventListener('error', () => {
      info.textContent = `${formatBytes(size)} · this browser cannot show it; download it instead.`;
      info.classList.add('ed-warn');
    });
    this.#setContent(tab, kind, h('div', { class: 'ed-media' }, element, info, this.#downloadLink(tab.path, urls.download)));
  }

  async #showBinary(tab: Tab, seq: number, size: number, contentType: string | null): Promise<void> {
    const urls = await this.#mediaUrls(tab.path);
    if (!this.#live(tab, seq)) return;
    const type = contentType && !contentType.startsWith('text/') ? `, ${contentType.split(';')[0]}` : '';
    this.#setContent(
      tab,
      'binary',
      h('div', { class: 'ed-binary' }, h('p', {}, `${tab.path} is not text (${formatBytes(size)}${type}), so it is not shown here.`), this.#downloadLink(tab.path, urls.download)),
    );
  }

  #showError(tab: Tab, message: string): void {
    const retry = h('button', { type: 'button' }, 'Try again');
    retry.addEventListener('click', () => {
      tab.loaded = this.#load(tab);
    });
    this.#setContent(tab, 'error', h('div', { class: 'ed-error', role: 'alert' }, h('p', {}, `Could not open ${tab.path}: ${message}`), retry));
    this.#ctx.status(`Could not open ${tab.path}: ${message}`, 'error');
  }

  // ---- saving and conflicts ----

  #saveTab(tab: Tab): Promise<void> {
    if (tab.kind !== 'text' || !tab.editor) return Promise.resolve();
    if (tab.saving) return tab.saving;
    if (!tab.editor.dirty && tab.disk !== 'deleted') {
      this.#ctx.status(`${tab.path}: no changes to save`);
      return Promise.resolve();
    }
    const saving = this.#saveNow(tab).finally(() => {
      tab.saving = undefined;
    });
    tab.saving = saving;
    return saving;
  }

  async #saveNow(tab: Tab): Promise<void> {
    try {
      if (tab.disk !== 'deleted' && tab.etag) {
        // A look first, so the usual conflict needs no failed request. The write below stays conditional anyway.
        const probe = await this.#probe(tab.path);
        if ('error' in probe) throw new Error(probe.error);
        if (!probe.present) return await this.#showConflict(tab, true);
        if (probe.etag !== tab.etag) return await this.#showConflict(tab, false);
      }
      await this.#write(tab, tab.disk === 'deleted' || !tab.etag ? { 'if-none-match': '*' } : { 'if-match': tab.etag });
    } catch (error) {
      this.#ctx.status(`Could not save ${tab.path}: ${messageOf(error)}`, 'error');
    }
  }

  /** The conditional write itself; a failed precondition shows the conflict. */
  async #write(tab: Tab, condition: Record<string, string>): Promise<void> {
    const editor = tab.editor!;
    const snapshot = editor.snapshot();
    const response = await this.#ctx.client.request('PUT /api/file', { query: { path: tab.path }, body: { content: snapshot.toString() }, headers: condition });
    if (response.status === 412) return this.#showConflict(tab, false);
    if (!response.ok) throw new Error(await errorText(response));
    await response.body?.cancel();
    tab.etag = response.headers.get('etag') ?? undefined;
    editor.markSaved(snapshot);
    tab.disk = 'same';
    tab.note = undefined;
    this.#clearConflict(tab);
    this.#refresh(tab);
    this.#ctx.status(`Saved ${tab.path}`);
    this.#ctx.events.emit('fs-change', { path: tab.path, kind: 'if-none-match' in condition ? 'created' : 'modified' });
  }

  /** Reads what is on disk now and shows the three choices in the tab. */
  async #showConflict(tab: Tab, deleted: boolean): Promise<void> {
    const editor = tab.editor;
    let conflict: Conflict = { deleted: true };
    if (!deleted) {
      const read = await this.#readText(tab.path);
      if (read.ok) conflict = { deleted: false, theirs: read.content, etag: read.etag };
      else if (read.status !== 404) {
        const probe = await this.#probe(tab.path);
        conflict = { deleted: false, unreadable: read.message, ...('etag' in probe ? { etag: probe.etag } : {}) };
      }
    }
    if (this.#tabs.get(tab.path) !== tab || !editor || tab.editor !== editor) return;
    const shown = tab.conflict;
    if (shown && shown.deleted === conflict.deleted && shown.theirs === conflict.theirs && shown.unreadable === conflict.unreadable) {
      // The disk's text seen again: the live feed's echo of the change a save just met, or the same bytes rewritten.
      // The banner and a comparison open (or being built) stay; only the version "keep mine" overwrites moves on.
      shown.etag = conflict.etag;
      tab.notice.querySelector<HTMLElement>('.ed-conflict')?.setAttribute('data-etag', conflict.etag ?? '');
      return;
    }
    tab.conflict = conflict;
    tab.disk = conflict.deleted ? 'deleted' : 'changed';
    tab.comparison?.destroy();
    tab.comparison = undefined;
    tab.compare.hidden = true;
    tab.content.hidden = false;

    const theirs = h('button', { type: 'button', class: 'ed-theirs', title: conflict.deleted ? 'Close this tab, dropping your edits' : 'Reload the version on disk, dropping your edits' }, conflict.deleted ? 'Keep theirs (close)' : 'Keep theirs');
    const mine = h('button', { type: 'button', class: 'ed-mine', title: conflict.deleted ? 'Save your version again' : 'Save your version over the one on disk' }, 'Keep mine');
    const compare = h('button', { type: 'button', class: 'ed-compare-button', disabled: conflict.theirs === undefined, 'aria-pressed': 'false' }, 'Compare');
    theirs.addEventListener('click', () => void this.#keepTheirs(tab));
    mine.addEventListener('click', () => void this.#keepMine(tab));
    compare.addEventListener('click', () => void this.#toggleComparison(tab, compare));
    const what = conflict.deleted
      ? `${tab.path} was deleted on disk. Your text here is not saved.`
      : `${tab.path} changed on disk since it was opened here${editorDirty(tab) ? ', and this tab has unsaved edits' : ''}. Saving would overwrite that change.${conflict.unreadable ? ` (The version on disk cannot be shown: ${conflict.unreadable}.)` : ''}`;
    tab.notice.querySelector('.ed-conflict')?.remove();
    tab.notice.prepend(h('div', { class: 'ed-banner ed-conflict', role: 'alert', 'data-deleted': String(conflict.deleted), 'data-etag': conflict.etag ?? '' }, h('span', { class: 'ed-conflict-text' }, what), theirs, mine, compare));
    this.#refresh(tab);
    this.#ctx.status(conflict.deleted ? `${tab.path} was deleted on disk` : `${tab.path} changed on disk: not saved`, 'error');
  }

  #clearConflict(tab: Tab): void {
    // The banner's buttons go: the focus goes back to the text rather than to the page.
    const hadFocus = tab.body.contains(document.activeElement) && !tab.content.contains(document.activeElement);
    tab.conflict = undefined;
    tab.comparison?.destroy();
    tab.comparison = undefined;
    tab.compare.hidden = true;
    replaceChildren(tab.compare);
    tab.content.hidden = false;
    tab.notice.querySelector('.ed-conflict')?.remove();
    tab.notice.querySelector('.ed-disk-note')?.remove();
    if (hadFocus && tab === this.#active) tab.editor?.focus();
  }

  async #keepTheirs(tab: Tab): Promise<void> {
    const conflict = tab.conflict;
    if (!conflict || !tab.editor) return;
    if (conflict.deleted) return this.#close(tab);
    if (conflict.theirs === undefined) {
      this.#clearConflict(tab);
      tab.loaded = this.#load(tab);
      return tab.loaded;
    }
    this.#replaceFromDisk(tab, conflict.theirs, conflict.etag ?? '');
    this.#clearConflict(tab);
    this.#refresh(tab);
    this.#ctx.status(`${tab.path}: reloaded the version on disk`);
  }

  async #keepMine(tab: Tab): Promise<void> {
    const conflict = tab.conflict;
    if (!conflict || !tab.editor || tab.saving) return;
    tab.saving = this.#write(tab, conflict.deleted || !conflict.etag ? { 'if-none-match': '*' } : { 'if-match': conflict.etag })
      .catch((error: unknown) => this.#ctx.status(`Could not save ${tab.path}: ${messageOf(error)}`, 'error'))
      .finally(() => {
        tab.saving = undefined;
      });
    return tab.saving;
  }

  async #toggleComparison(tab: Tab, button: HTMLButtonElement): Promise<void> {
    if (tab.comparison) {
      tab.comparison.destroy();
      tab.comparison = undefined;
      replaceChildren(tab.compare);
      tab.compare.hidden = true;
      tab.content.hidden = false;
      button.setAttribute('aria-pressed', 'false');
      button.textContent = 'Compare';
      return;
    }
    const conflict = tab.conflict;
    const editor = tab.editor;
    const theirs = conflict?.theirs;
    if (theirs === undefined || !editor || tab.comparing) return; // a second click while it is being built: nothing
    tab.comparing = true;
    let comparison: { destroy(): void };
    const host = h('div', { class: 'ed-merge' });
    try {
      const { showComparison } = await this.#codeModule();
      comparison = await showComparison(host, tab.path, theirs, editor.text());
    } catch (error) {
      this.#ctx.status(`Could not compare ${tab.path}: ${messageOf(error)}`, 'error');
      return;
    } finally {
      tab.comparing = false;
    }
    // Meanwhile the conflict may have been settled (keep theirs, keep mine), replaced, or the tab closed.
    if (this.#tabs.get(tab.path) !== tab || tab.conflict !== conflict || tab.editor !== editor || tab.comparison || !button.isConnected) {
      comparison.destroy();
      return;
    }
    tab.comparison = comparison;
    replaceChildren(tab.compare, h('div', { class: 'ed-merge-heads' }, h('span', {}, 'On disk (theirs)'), h('span', {}, 'This tab (mine)')), host);
    tab.compare.hidden = false;
    tab.content.hidden = true;
    button.setAttribute('aria-pressed', 'true');
    button.textContent = 'Close comparison';
  }

  #replaceFromDisk(tab: Tab, content: string, etag: string): void {
    tab.replacing = true;
    try {
      tab.editor!.replace(content);
    } finally {
      tab.replacing = false;
    }
    tab.etag = etag;
    tab.disk = 'same';
  }

  // ---- changes on disk (the live feed's fs-change) ----

  #onDiskChange(change: PanelEventMap['fs-change']): void {
    const paths = [change.path, change.from].filter((path): path is string => path !== undefined).map(normalisePath);
    for (const tab of this.#tabs.values()) {
      const touched = change.kind === 'resync' || paths.some((path) => isUnder(tab.path, path === '' ? '.' : path));
      if (touched) void this.#checkDisk(tab);
    }
  }

  #checkDisk(tab: Tab): Promise<void> {
    if (tab.checking) {
      tab.recheck = true;
      return tab.checking;
    }
    tab.checking = (async () => {
      try {
        do {
          tab.recheck = false;
          await this.#checkOnce(tab);
        } while (tab.recheck && this.#tabs.get(tab.path) === tab);
      } catch (error) {
        this.#ctx.status(`Could not check ${tab.path} on disk: ${messageOf(error)}`, 'error');
      } finally {
        tab.checking = undefined;
      }
    })();
    return tab.checking;
  }

  async #checkOnce(tab: Tab): Promise<void> {
    await tab.loaded;
    while (tab.saving) await tab.saving;
    if (this.#tabs.get(tab.path) !== tab) return;
    const seq = tab.loadSeq;
    if (tab.kind === 'paged') {
      const probe = await this.#probe(tab.path);
      if (!this.#live(tab, seq)) return; // reloaded or closed meanwhile
      if ('error' in probe) throw new Error(probe.error);
      if (probe.present && probe.etag === tab.etag) return;
      tab.disk = probe.present ? 'changed' : 'deleted';
      const reload = h('button', { type: 'button' }, 'Reload');
      reload.addEventListener('click', () => {
        tab.notice.querySelector('.ed-disk-note')?.remove();
        tab.loaded = this.#load(tab);
      });
      tab.notice.querySelector('.ed-disk-note')?.remove();
      tab.notice.append(h('div', { class: 'ed-banner ed-disk-note', role: 'status' }, h('span', {}, `${tab.path} ${tab.disk === 'deleted' ? 'was deleted' : 'changed'} on disk.`), reload));
      this.#refresh(tab);
      return;
    }
    if (tab.kind !== 'text' || !tab.editor) {
      // Previews, downloads and errors simply show the file as it is now.
      tab.loaded = this.#load(tab);
      return tab.loaded;
    }
    const editor = tab.editor;
    const probe = await this.#probe(tab.path);
    if (!this.#live(tab, seq) || tab.editor !== editor) return;
    if ('error' in probe) throw new Error(probe.error);
    if (!probe.present) return tab.disk === 'deleted' ? undefined : this.#showConflict(tab, true);
    if (probe.etag === tab.etag) return; // the version this tab has (our own save, or nothing new)
    tab.disk = 'changed';
    this.#refresh(tab);
    if (editor.dirty || tab.conflict) return this.#showConflict(tab, false);
    // No edits here: take the disk's version, the caret staying on its line.
    const read = await this.#readText(tab.path);
    if (!this.#live(tab, seq) || tab.editor !== editor) return;
    if (!read.ok) {
      if (read.status === 404) return this.#showConflict(tab, true);
      tab.loaded = this.#load(tab);
      return tab.loaded;
    }
    if (editor.dirty) return this.#showConflict(tab, false);
    this.#replaceFromDisk(tab, read.content, read.etag);
    tab.disk = 'changed';
    tab.note = 'reloaded from disk';
    this.#refresh(tab);
  }
}

function editorDirty(tab: Tab): boolean {
  return !!tab.editor?.dirty;
}

/** A failed answer's message: ori's `{error}`, oRPC's `{message}`, or the status line. */
async function errorText(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown };
    if (typeof body.error === 'string') return body.error;
    if (typeof body.message === 'string') return body.message;
  } catch {
    // not JSON: the status line below
  }
  return text.trim() || `${response.status} ${response.statusText}`.trim();
}
