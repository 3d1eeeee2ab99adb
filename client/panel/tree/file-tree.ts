import { WorkspaceClientError } from '../../http-client.ts';
import { h } from '../dom.ts';
import { messageOf } from '../shared/errors.ts';
import { isUnder, joinPath, parentPath } from '../shared/paths.ts';
import { confirmDialog } from '../shell/confirm-dialog.ts';
import type { PanelEventMap } from '../shell/events.ts';
import type { PanelContext } from '../shell/panel-context.ts';
import { readDrop, type Dropped } from './dropped-files.ts';
import './file-tree.css';
import { descendants, mergeListing, rootNode, type TreeNode } from './tree-model.ts';
import { showMenu, type MenuItem } from './tree-popups.ts';

/**
 * The Files view: the workspace as an ARIA tree (docs/panel.md#file-tree). The first levels come from
 * `GET /workspace/tree`, a folder the walk left closed is listed with `GET /workspace/children` when it opens;
 * the change feed's `fs-change` events re-list the folders they touch. Actions (toolbar, context menu, keys):
 * new file, new folder, rename, copy, delete, and upload by dropping files from the system.
 */
export async function mountFileTree(ctx: PanelContext): Promise<void> {
  const tree = new FileTree(ctx);
  ctx.shell.addView({ id: 'files', title: 'Files', element: tree.element });
  await tree.load();
}

const GIT_NAMES: Record<string, string> = { M: 'modified', A: 'added', U: 'untracked', D: 'deleted', R: 'renamed', C: 'copied', T: 'type changed', '!': 'conflict' };

/** Re-listing after change events waits this long for more of them (a burst becomes one call per folder). */
const RELIST_DELAY_MS = 40;

interface Editing {
  kind: 'file' | 'dir' | 'rename' | 'copy';
  /** The folder the name is in. */
  folder: TreeNode;
  /** rename: the entry renamed; copy: the entry copied (the new row comes right after it). */
  node: TreeNode | undefined;
  /** The row of a new entry (create, copy); a rename edits the entry's own row. */
  li: HTMLLIElement | undefined;
  input: HTMLInputElement;
  error: HTMLElement;
  busy: boolean;
}

type EntryKind = 'file' | 'dir';

class FileTree {
  readonly element: HTMLElement;
  readonly list: HTMLUListElement;
  readonly #notice: HTMLElement;
  readonly #root = rootNode();
  readonly #byPath = new Map<string, TreeNode>([['.', this.#root]]);
  #active: TreeNode | undefined;
  #editing: Editing | undefined;
  #rendering = 0;
  #git: ReadonlyMap<string, string> = new Map();
  #gitFolders = new Set<string>();
  readonly #pending = new Set<string>();
  #pendingTimer: ReturnType<typeof setTimeout> | undefined;
  #resync = false;
  /** Something was removed since the last flush: a folder to re-list may be gone too. */
  #sawRemoval = false;
  readonly #relisting = new Map<TreeNode, Promise<void>>();
  readonly #relistAgain = new Set<TreeNode>();
  #dropTarget: HTMLElement | undefined;
  #typeAhead = { text: '', at: 0 };

  constructor(readonly ctx: PanelContext) {
    this.list = h('ul', { class: 'file-tree', role: 'tree', 'aria-label': 'Files', 'aria-busy': 'true' });
    this.#notice = h('div', { class: 'tree-notice', role: 'alert', hidden: true });
    const toolbar = h(
      'div',
      { class: 'tree-toolbar', role: 'toolbar', 'aria-label': 'File actions' },
      this.#toolButton('new-file', 'New file', '+ File', () => void this.startCreate('file')),
      this.#toolButton('new-folder', 'New folder', '+ Folder', () => void this.startCreate('dir')),
      this.#toolButton('refresh', 'Refresh the tree', '⟳', () => this.#scheduleResync()),
      this.#toolButton('collapse', 'Collapse all folders', '⊟', () => this.#collapseAll()),
    );
    this.element = h('section', { class: 'files-view' }, toolbar, this.#notice, this.list);
    this.#listen();
    ctx.events.on('fs-change', (change) => this.#onChange(change));
    ctx.events.on('git-status', ({ files }) => this.#applyGit(files));
  }

  #toolButton(action: string, label: string, text: string, run: () => void): HTMLButtonElement {
    const button = h('button', { type: 'button', class: 'tree-tool', 'data-action': action, title: label, 'aria-label': label }, text);
    button.addEventListener('click', run);
    return button;
  }

  /** The first walk. A failure is said in the view, with a way to try again. */
  async load(): Promise<void> {
    this.list.setAttribute('aria-busy', 'true');
    try {
      const answer = await this.ctx.client.call('GET /workspace/tree');
      this.#forget(mergeListing(this.#root, answer.tree, answer.hidden));
      this.#index(this.#root);
      this.#notice.hidden = true;
      this.#render(this.#root);
      this.#ensureTabStop();
      this.list.dataset.loaded = 'true';
    } catch (error) {
      const message = `Could not list the workspace: ${messageOf(error)}`;
      this.ctx.status(message, 'error');
      const retry = h('button', { type: 'button' }, 'Try again');
      retry.addEventListener('click', () => void this.load());
      this.#notice.replaceChildren(h('span', {}, message), retry);
      this.#notice.hidden = false;
    } finally {
      this.list.removeAttribute('aria-busy');
    }
  }

  // ——— the model ———

  #index(node: TreeNode): void {
    for (const each of descendants(node)) this.#byPath.set(each.path, each);
  }

  /** Nodes that left the tree, with everything under them. */
  #forget(gone: TreeNode[]): void {
    for (const node of gone) {
      for (const each of descendants(node)) {
        if (this.#byPath.get(each.path) === each) this.#byPath.delete(each.path);
        if (this.#active === each) this.#active = undefined;
      }
    }
  }

  /** Lists `node` again (one call at a time per folder; a request meanwhile runs once more after it). */
  async #relist(node: TreeNode): Promise<void> {
    const running = this.#relisting.get(node);
    if (running) {
      this.#relistAgain.add(node);
      return running;
    }
    const run = (async () => {
      do {
        this.#relistAgain.delete(node);
        await this.#listOnce(node);
      } while (this.#relistAgain.has(node));
    })();
    this.#relisting.set(node, run);
    try {
      await run;
    } finally {
      this.#relisting.delete(node);
    }
  }

  async #listOnce(node: TreeNode): Promise<void> {
    node.item?.setAttribute('aria-busy', 'true');
    try {
      const answer = await this.ctx.client.call('GET /workspace/children', { query: { path: node.path } });
      if (this.#byPath.get(node.path) !== node) return; // left the tree meanwhile
      const hadFocus = this.element.contains(document.activeElement);
      const activeBefore = this.#active;
      this.#forget(mergeListing(node, answer.entries, answer.hidden));
      this.#index(node);
      this.#render(node);
      this.#refreshItems(node);
      // The active entry left: the folder (or the first item) takes its place, and the focus if it had it.
      if (activeBefore && !this.#active) this.#setActive(node === this.#root ? this.#visible()[0] : node, hadFocus && !this.#editing);
      this.#ensureTabStop();
    } catch (error) {
      if (error instanceof WorkspaceClientError && error.status === 404 && node.parent) {
        // The folder is gone: its parent's listing says so.
        node.children = undefined;
        await this.#relist(node.parent);
        return;
      }
      throw error;
    } finally {
      node.item?.removeAttribute('aria-busy');
    }
  }

  // ——— rendering ———

  #itemOf(node: TreeNode): HTMLLIElement {
    if (node.item) return node.item;
    const twisty = h('span', { class: 'tree-twisty', 'aria-hidden': 'true' });
    const name = h('span', { class: 'tree-name' }, node.name);
    const mark = h('span', { class: 'tree-link', 'aria-hidden': 'true' });
    const badge = h('span', { class: 'tree-badge', 'aria-hidden': 'true' });
    const row = h('div', { class: 'tree-row' }, twisty, name, mark, badge);
    const item = h('li', { role: 'treeitem', tabindex: '-1' }, row);
    node.item = item;
    this.#updateItem(node);
    if (node.expanded) this.#render(node);
    return item;
  }

  #updateItem(node: TreeNode): void {
    const item = node.item;
    if (!item) return;
    const row = item.firstElementChild as HTMLElement;
    const [twisty, name, mark, badge] = [...row.children] as HTMLElement[];
    item.dataset.path = node.path;
    item.dataset.type = node.type;
    item.setAttribute('aria-level', String(node.depth));
    item.setAttribute('aria-selected', String(this.#active === node));
    if (node.type === 'dir') item.setAttribute('aria-expanded', String(node.expanded));
    else item.removeAttribute('aria-expanded');
    item.classList.toggle('ignored', node.ignored);
    item.classList.toggle('link', node.link !== undefined);
    item.classList.toggle('broken', node.link?.state === 'broken');
    row.style.setProperty('--depth', String(node.depth - 1));
    if (twisty) twisty.textContent = node.type === 'dir' ? (node.expanded ? '▾' : '▸') : '';
    if (name && !name.querySelector('input')) name.textContent = node.name;
    const notes: string[] = [];
    if (node.link) {
      const where = node.link.state === 'broken' ? 'broken link to' : node.link.state === 'outside' ? 'link outside the workspace to' : 'link to';
      notes.push(`${where} ${node.link.to}`);
      if (mark) mark.textContent = node.link.state === 'broken' ? '⇢✕' : '⇢';
    } else if (mark) mark.textContent = '';
    if (node.ignored) notes.push('ignored');
    const code = this.#gitCode(node);
    if (badge) {
      badge.textContent = code ?? (node.type === 'dir' && this.#gitFolders.has(node.path) ? '•' : '');
      badge.dataset.code = code ?? (badge.textContent ? 'dot' : '');
    }
    if (code) notes.push(GIT_NAMES[code] ?? code);
    else if (node.type === 'dir' && this.#gitFolders.has(node.path)) notes.push('has changes');
    item.setAttribute('aria-label', [node.name, ...notes].join(', '));
    row.title = [node.path, ...notes].join(' — ');
  }

  /** Updates every shown item under `node` (git badges, sizes). */
  #refreshItems(node: TreeNode): void {
    for (const each of descendants(node)) if (each.item) this.#updateItem(each);
  }

  /** Puts `node`'s children in its group (the tree itself for the root), moving as few elements as it can. */
  #render(node: TreeNode): void {
    const item = node === this.#root ? undefined : node.item;
    if (node !== this.#root && !item) return;
    if (!node.expanded || !node.children) {
      node.group?.remove();
      node.group = undefined;
      return;
    }
    let container: HTMLUListElement;
    if (node === this.#root) container = this.list;
    else {
      node.group ??= h('ul', { role: 'group' });
      container = node.group;
      if (container.parentElement !== item) item!.append(container);
    }
    const wanted: HTMLElement[] = node.children.map((child) => this.#itemOf(child));
    const editing = this.#editing;
    if (editing?.li && editing.folder === node) {
      const after = editing.node ? wanted.indexOf(editing.node.item!) + 1 : 0;
      wanted.splice(after, 0, editing.li);
    }
    // Not an entry, but inside a tree every row is a treeitem: one that cannot be chosen.
    if (node.hidden > 0) wanted.push(h('li', { role: 'treeitem', 'aria-disabled': 'true', 'aria-level': node.depth + 1, class: 'tree-more' }, `${node.hidden} more not listed`));
    this.#rendering += 1;
    try {
      const keep = new Set<Element>(wanted);
      for (const child of [...container.children]) if (!keep.has(child)) child.remove();
      wanted.forEach((element, index) => {
        const at = container.children[index];
        if (at !== element) container.insertBefore(element, at ?? null);
      });
    } finally {
      this.#rendering -= 1;
    }
  }

  /** The shown items in order. */
  #visible(): TreeNode[] {
    const out: TreeNode[] = [];
    const walk = (node: TreeNode) => {
      for (const child of node.children ?? []) {
        out.push(child);
        if (child.expanded) walk(child);
      }
    };
    walk(this.#root);
    return out;
  }

  #setActive(node: TreeNode | undefined, focus = true): void {
    const previous = this.#active;
    this.#active = node;
    if (previous?.item) {
      previous.item.tabIndex = -1;
      previous.item.setAttribute('aria-selected', 'false');
    }
    if (node?.item) {
      node.item.tabIndex = 0;
      node.item.setAttribute('aria-selected', 'true');
      if (focus) node.item.focus({ preventScroll: true });
      (node.item.firstElementChild as HTMLElement | null)?.scrollIntoView?.({ block: 'nearest' });
    }
    this.#ensureTabStop();
  }

  /** Exactly one item can be reached with Tab (the active one, else the first). */
  #ensureTabStop(): void {
    const stop = this.#active?.item?.isConnected ? this.#active.item : this.#visible()[0]?.item;
    for (const item of this.list.querySelectorAll<HTMLElement>('[role=treeitem][tabindex="0"]')) if (item !== stop) item.tabIndex = -1;
    if (stop) stop.tabIndex = 0;
  }

  // ——— opening and closing ———

  async #expand(node: TreeNode): Promise<boolean> {
    if (node.type !== 'dir') return false;
    if (!node.children) {
      try {
        await this.#relist(node);
      } catch (error) {
        this.ctx.status(`Could not open ${node.path}: ${messageOf(error)}`, 'error');
        return false;
      }
    }
    if (this.#byPath.get(node.path) !== node) return false;
    node.expanded = true;
    this.#updateItem(node);
    this.#render(node);
    this.#ensureTabStop();
    return true;
  }

  #collapse(node: TreeNode): void {
    node.expanded = false;
    this.#updateItem(node);
    this.#render(node);
    if (this.#active && this.#active !== node && isUnder(this.#active.path, node.path)) this.#setActive(node);
  }

  #collapseAll(): void {
    for (const node of descendants(this.#root)) if (node !== this.#root && node.expanded) this.#collapse(node);
  }

  async #toggle(node: TreeNode): Promise<void> {
    if (node.expanded) this.#collapse(node);
    else await this.#expand(node);
  }

  async #open(node: TreeNode): Promise<void> {
    try {
      await this.ctx.openFile(node.path);
    } catch (error) {
      this.ctx.status(`Could not open ${node.path}: ${messageOf(error)}`, 'error');
    }
  }

  /** Opens the folders down to `path` and makes it the active item. */
  async #reveal(path: string, focus = true): Promise<TreeNode | undefined> {
    const parts = path.split('/');
    let node: TreeNode | undefined = this.#root;
    for (let i = 0; i < parts.length; i++) {
      if (!node) return undefined;
      if (node !== this.#root && !(await this.#expand(node))) return undefined;
      if (!node.children) await this.#relist(node);
      node = this.#byPath.get(parts.slice(0, i + 1).join('/'));
    }
    if (node) this.#setActive(node, focus);
    return node;
  }

  // ——— live updates ———

  #onChange(change: PanelEventMap['fs-change']): void {
    if (change.kind === 'deleted' || change.kind === 'renamed') this.#sawRemoval = true;
    if (change.kind === 'resync') {
      this.#scheduleResync();
      return;
    }
    // An entry the tree already shows that is still there changed inside (its own contents report
    // themselves): only a new or gone entry changes a listing.
    if (change.kind !== 'deleted' && change.kind !== 'renamed' && this.#byPath.has(change.path)) return;
    for (const path of [change.path, change.from]) {
      if (path === undefined || path === '.' || path === '') continue;
      this.#pending.add(parentPath(path));
    }
    this.#flushSoon();
  }

  #scheduleResync(): void {
    this.#resync = true;
    this.#flushSoon();
  }

  #flushSoon(): void {
    this.#pendingTimer ??= setTimeout(() => {
      this.#pendingTimer = undefined;
      void this.#flush();
    }, RELIST_DELAY_MS);
  }

  /**
   * Re-lists the folders changes touched: shown folders (open ones and the root) are asked again; a listed but
   * closed folder just forgets its listing (it is asked when opened). A resync does that for every folder.
   */
  async #flush(): Promise<void> {
    const folders = new Set<TreeNode>();
    if (this.#resync) {
      this.#resync = false;
      this.#pending.clear();
      for (const node of descendants(this.#root)) if (node.children) folders.add(node);
    }
    for (const path of this.#pending) {
      const node = this.#byPath.get(path);
      if (node?.children) folders.add(node);
    }
    this.#pending.clear();
    const check = this.#sawRemoval;
    this.#sawRemoval = false;
    const ordered = [...folders].sort((a, b) => a.depth - b.depth);
    for (const node of ordered) {
      if (this.#byPath.get(node.path) !== node || !node.children) continue;
      if (node !== this.#root && !this.#shown(node)) {
        this.#forget(node.children);
        node.children = undefined;
        this.#render(node);
        continue;
      }
      try {
        await (check ? this.#relistIfThere(node) : this.#relist(node));
      } catch (error) {
        this.ctx.status(`Could not list ${node.path}: ${messageOf(error)}`, 'error');
      }
    }
  }

  /**
   * After a removal a folder to re-list may be gone with it (`rm -r` of an open folder): `/ws` `file_exists`
   * says so without a 404 (which the browser would log as an error), and then its parent is re-listed instead.
   */
  async #relistIfThere(node: TreeNode): Promise<void> {
    let at = node;
    while (at.parent && !(await this.#exists(at.path))) at = at.parent;
    if (this.#byPath.get(at.path) === at) await this.#relist(at);
  }

  async #exists(path: string): Promise<boolean> {
    if (!this.ctx.capabilities.webSockets) return true; // no /ws here: the listing will tell
    try {
      return await this.ctx.rpc().call('file_exists', { path }, { timeoutMs: 5000 });
    } catch {
      return true; // cannot tell: the listing will
    }
  }

  /** Open, with every folder above it open. */
  #shown(node: TreeNode): boolean {
    for (let at: TreeNode | undefined = node; at && at !== this.#root; at = at.parent) if (!at.expanded) return false;
    return true;
  }

  // ——— git ———

  #applyGit(files: ReadonlyMap<string, string>): void {
    this.#git = files;
    const folders = new Set<string>();
    for (const path of files.keys()) for (let at = parentPath(path); at !== '.'; at = parentPath(at)) folders.add(at);
    this.#gitFolders = folders;
    this.#refreshItems(this.#root);
    this.list.dataset.git = files.size > 0 ? 'changes' : 'clean';
  }

  /** A file's code, or an untracked folder's (inherited by what is in it). */
  #gitCode(node: TreeNode): string | undefined {
    const own = this.#git.get(node.path);
    if (own) return own;
    for (let at = parentPath(node.path); at !== '.'; at = parentPath(at)) if (this.#git.get(at) === 'U') return 'U';
    return undefined;
  }

  // ——— actions ———

  /** Where a new entry goes: the active folder, or the active file's folder, or the root. */
  #targetFolder(): TreeNode {
    const active = this.#active;
    if (!active) return this.#root;
    return active.type === 'dir' ? active : (active.parent ?? this.#root);
  }

  async startCreate(kind: EntryKind, folder = this.#targetFolder()): Promise<void> {
    this.#cancelEdit(false);
    if (folder !== this.#root && !(await this.#expand(folder))) return;
    if (folder === this.#root && !this.#root.children) {
      try {
        await this.#relist(this.#root);
      } catch (error) {
        this.ctx.status(`Could not list the workspace: ${messageOf(error)}`, 'error');
        return;
      }
    }
    const label = kind === 'file' ? 'New file name' : 'New folder name';
    const { input, error, field } = this.#editField(label, '');
    const li = h('li', { role: 'treeitem', 'aria-level': folder.depth + 1, 'aria-label': label, class: 'tree-edit' }, h('div', { class: 'tree-row' }, h('span', { class: 'tree-twisty', 'aria-hidden': 'true' }, kind === 'dir' ? '▸' : ''), field), error);
    (li.firstElementChild as HTMLElement).style.setProperty('--depth', String(folder.depth));
    this.#editing = { kind, folder, node: undefined, li, input, error, busy: false };
    this.#render(folder);
    input.focus();
  }

  startRename(node: TreeNode): void {
    if (node === this.#root || !node.item) return;
    this.#cancelEdit(false);
    const { input, error, field } = this.#editField(`Rename ${node.name}`, node.name);
    const name = node.item.querySelector('.tree-name')!;
    name.replaceChildren(field);
    node.item.firstElementChild!.after(error);
    this.#editing = { kind: 'rename', folder: node.parent ?? this.#root, node, li: undefined, input, error, busy: false };
    input.focus();
    const dot = node.type === 'file' ? node.name.lastIndexOf('.') : -1;
    input.setSelectionRange(0, dot > 0 ? dot : node.name.length);
  }

  startCopy(node: TreeNode): void {
    if (node === this.#root) return;
    this.#cancelEdit(false);
    const folder = node.parent ?? this.#root;
    const taken = new Set((folder.children ?? []).map((child) => child.name));
    const label = `Copy ${node.name} as`;
    const { input, error, field } = this.#editField(label, copyName(node.name, taken));
    const li = h('li', { role: 'treeitem', 'aria-level': node.depth, 'aria-label': label, class: 'tree-edit' }, h('div', { class: 'tree-row' }, h('span', { class: 'tree-twisty', 'aria-hidden': 'true' }), field), error);
    (li.firstElementChild as HTMLElement).style.setProperty('--depth', String(node.depth - 1));
    this.#editing = { kind: 'copy', folder, node, li, input, error, busy: false };
    this.#render(folder);
    input.focus();
    const dot = node.type === 'file' ? input.value.lastIndexOf('.') : -1;
    input.setSelectionRange(0, dot > 0 ? dot : input.value.length);
  }

  #editField(label: string, value: string): { input: HTMLInputElement; error: HTMLElement; field: HTMLElement } {
    const input = h('input', { type: 'text', class: 'tree-input', 'aria-label': label, spellcheck: 'false', autocomplete: 'off', value });
    input.value = value;
    const error = h('div', { class: 'tree-input-error', role: 'alert', hidden: true });
    input.addEventListener('keydown', (event) => {
      event.stopPropagation();
      if (event.key === 'Enter') {
        event.preventDefault();
        void this.#commitEdit();
      } else if (event.key === 'Escape') {
        event.preventDefault();
        this.#cancelEdit(true);
      }
    });
    input.addEventListener('blur', () => {
      // Leaving the field cancels it, except while it is being saved or the tree is moving rows around.
      const editing = this.#editing;
      if (!editing || editing.input !== input || editing.busy) return;
      if (this.#rendering > 0) {
        queueMicrotask(() => input.focus());
        return;
      }
      this.#cancelEdit(false);
    });
    return { input, error, field: input };
  }

  #cancelEdit(refocus: boolean): void {
    const editing = this.#editing;
    if (!editing) return;
    this.#editing = undefined;
    if (editing.kind === 'rename' && editing.node?.item) {
      editing.node.item.querySelector('.tree-name')!.textContent = editing.node.name;
      editing.error.remove();
    } else {
      editing.li?.remove();
      this.#render(editing.folder);
    }
    if (refocus) {
      const back = editing.node ?? (editing.folder === this.#root ? this.#active : editing.folder);
      this.#setActive(back ?? this.#visible()[0], true);
    }
  }

  #showEditError(editing: Editing, message: string): void {
    this.ctx.status(`${verbOf(editing.kind)} ${editing.input.value.trim()}: ${message}`, 'error');
    editing.error.textContent = message;
    editing.error.hidden = false;
    editing.input.setAttribute('aria-invalid', 'true');
  }

  async #commitEdit(): Promise<void> {
    const editing = this.#editing;
    if (!editing || editing.busy) return;
    const name = editing.input.value.trim();
    if (name === '' || (editing.kind === 'rename' && name === editing.node?.name)) {
      this.#cancelEdit(true);
      return;
    }
    const problem = nameProblem(name);
    if (problem) {
      this.#showEditError(editing, problem);
      return;
    }
    const path = joinPath(editing.folder.path, name);
    const first = name.split('/')[0]!;
    // Taken names are refused here (a refused call would also be a console error in the browser); for
    // `a/b` the daemon decides (a folder `a` may well exist).
    if (!name.includes('/') && editing.folder.children?.some((child) => child.name === first)) {
      this.#showEditError(editing, `${path} already exists`);
      return;
    }
    editing.busy = true;
    editing.input.readOnly = true;
    try {
      const client = this.ctx.client;
      if (editing.kind === 'file') {
        await client.call('PUT /api/file', { query: { path }, body: { content: '' }, headers: { 'if-none-match': '*' } });
      } else if (editing.kind === 'dir') {
        await client.call('POST /workspace/dir', { body: { path } });
      } else if (editing.kind === 'rename') {
        await client.call('POST /workspace/move', { body: { from: editing.node!.path, to: path } });
      } else {
        await client.call('POST /workspace/copy', { body: { from: editing.node!.path, to: path } });
      }
    } catch (error) {
      editing.busy = false;
      editing.input.readOnly = false;
      const message = error instanceof WorkspaceClientError && error.status === 412 ? `${path} already exists` : messageOf(error);
      this.#showEditError(editing, message);
      editing.input.focus();
      return;
    }
    const from = editing.node?.path;
    editing.busy = false;
    this.#editing = undefined;
    if (editing.kind === 'rename' && editing.node?.item) {
      editing.node.item.querySelector('.tree-name')!.textContent = editing.node.name;
      editing.error.remove();
    } else editing.li?.remove();
    if (editing.kind === 'rename' && from !== undefined) this.ctx.events.emit('fs-change', { path, kind: 'renamed', from });
    this.ctx.status(`${pastOf(editing.kind)} ${path}`);
    try {
      await this.#relist(editing.folder);
      const node = await this.#reveal(path);
      if (node && editing.kind === 'file') await this.#open(node);
    } catch (error) {
      this.ctx.status(`Could not list ${editing.folder.path}: ${messageOf(error)}`, 'error');
    }
  }

  async remove(node: TreeNode): Promise<void> {
    if (node === this.#root) return;
    const what = node.type === 'dir' && !node.link ? `the folder ${node.path} and everything in it` : node.path;
    const yes = await confirmDialog({ title: `Delete ${node.name}?`, message: `This deletes ${what} from the disk. It cannot be undone.`, confirm: 'Delete', danger: true });
    if (!yes) {
      this.#setActive(node);
      return;
    }
    const visible = this.#visible();
    const index = visible.indexOf(node);
    const after = visible.slice(index + 1).find((each) => !isUnder(each.path, node.path)) ?? visible[index - 1];
    try {
      await this.ctx.client.call('DELETE /workspace/entry', { body: { path: node.path } });
    } catch (error) {
      this.ctx.status(`Deleting ${node.path} failed: ${messageOf(error)}`, 'error');
      this.#setActive(node);
      return;
    }
    this.ctx.status(`Deleted ${node.path}`);
    const folder = node.parent ?? this.#root;
    try {
      await this.#relist(folder);
    } catch (error) {
      this.ctx.status(`Could not list ${folder.path}: ${messageOf(error)}`, 'error');
    }
    const next = after && this.#byPath.get(after.path) === after ? after : folder === this.#root ? this.#visible()[0] : folder;
    this.#setActive(next);
  }

  async upload(folder: TreeNode, take: () => Promise<Dropped>): Promise<void> {
    let dropped: Dropped;
    try {
      dropped = await take();
    } catch (error) {
      this.ctx.status(`Could not read the dropped files: ${messageOf(error)}`, 'error');
      return;
    }
    if (dropped.files.length === 0 && dropped.folders.length === 0) return;
    if (folder !== this.#root && !(await this.#expand(folder))) return;
    if (!folder.children) {
      try {
        await this.#relist(folder);
      } catch (error) {
        this.ctx.status(`Could not list ${folder === this.#root ? 'the workspace' : folder.path}: ${messageOf(error)}`, 'error');
        return;
      }
    }
    const tops = new Set([...dropped.files.map((each) => each.path), ...dropped.folders].map((path) => path.split('/')[0]!));
    const existing = (folder.children ?? []).filter((child) => tops.has(child.name)).map((child) => child.name);
    if (existing.length > 0) {
      const replace = await confirmDialog({
        title: existing.length === 1 ? `Replace ${existing[0]}?` : `Replace ${existing.length} entries?`,
        message: `${existing.join(', ')} already ${existing.length === 1 ? 'exists' : 'exist'} in ${folder === this.#root ? 'the workspace' : folder.path}: the dropped files replace what has the same name.`,
        confirm: 'Replace',
        danger: true,
      });
      if (!replace) return;
    }
    const where = folder === this.#root ? 'the workspace' : folder.path;
    const count = dropped.files.length;
    this.ctx.status(`Uploading ${count} file${count === 1 ? '' : 's'} to ${where}…`);
    let done = 0;
    try {
      for (const path of dropped.folders) await this.ctx.client.call('POST /workspace/dir', { body: { path: joinPath(folder.path, path) } });
      for (const { path, file } of dropped.files) {
        const target = joinPath(folder.path, path);
        const response = await this.ctx.client.request('POST /workspace/upload', { query: { path: target }, raw: file });
        if (!response.ok) {
          const body = (await response.json().catch(() => ({}))) as { error?: unknown };
          throw new Error(`${target}: ${typeof body.error === 'string' ? body.error : `${response.status} ${response.statusText}`}`);
        }
        await response.body?.cancel();
        done += 1;
      }
      this.ctx.status(`Uploaded ${count} file${count === 1 ? '' : 's'} to ${where}`);
    } catch (error) {
      this.ctx.status(`Upload failed after ${done} of ${count}: ${messageOf(error)}`, 'error');
    }
    try {
      await this.#relist(folder);
      const first = [...tops][0];
      if (first) await this.#reveal(joinPath(folder.path, first), this.element.contains(document.activeElement));
    } catch (error) {
      this.ctx.status(`Could not list ${folder.path}: ${messageOf(error)}`, 'error');
    }
  }

  #menuFor(node: TreeNode | undefined, at: { x: number; y: number }): void {
    const items: MenuItem[] = [];
    const folder = node ? (node.type === 'dir' ? node : (node.parent ?? this.#root)) : this.#root;
    if (node?.type === 'file') items.push({ label: 'Open', hint: 'Enter', run: () => void this.#open(node) });
    items.push({ label: 'New file…', run: () => void this.startCreate('file', folder) });
    items.push({ label: 'New folder…', run: () => void this.startCreate('dir', folder) });
    if (node) {
      items.push({ label: 'Rename…', hint: 'F2', run: () => this.startRename(node) });
      items.push({ label: 'Copy…', run: () => this.startCopy(node) });
      items.push({ label: 'Delete', hint: 'Del', run: () => void this.remove(node) });
    }
    items.push({ label: 'Refresh', run: () => this.#scheduleResync() });
    showMenu(at, node ? `Actions for ${node.name}` : 'File actions', items, () => {
      if (node?.item?.isConnected) node.item.focus();
      else this.#active?.item?.focus();
    });
  }

  // ——— input ———

  #nodeOf(target: EventTarget | null): TreeNode | undefined {
    const item = (target as Element | null)?.closest?.('[role=treeitem]');
    const path = (item as HTMLElement | null)?.dataset.path;
    return path === undefined ? undefined : this.#byPath.get(path);
  }

  #listen(): void {
    this.list.addEventListener('click', (event) => {
      if ((event.target as Element).closest('.tree-edit, input')) return;
      const node = this.#nodeOf(event.target);
      if (!node) return;
      this.#setActive(node);
      if (node.type === 'dir') void this.#toggle(node);
      else void this.#open(node);
    });
    this.list.addEventListener('focusin', (event) => {
      const node = this.#nodeOf(event.target);
      if (node && node !== this.#active && (event.target as Element).getAttribute('role') === 'treeitem') this.#setActive(node, false);
    });
    this.list.addEventListener('contextmenu', (event) => {
      if ((event.target as Element).closest('input')) return;
      event.preventDefault();
      const node = this.#nodeOf(event.target);
      if (node) this.#setActive(node);
      this.#menuFor(node, { x: event.clientX, y: event.clientY });
    });
    this.list.addEventListener('keydown', (event) => this.#onKey(event));

    // Files dropped from the system: onto a folder, a file's folder, or the empty space (the root).
    const targetOf = (event: DragEvent): { folder: TreeNode; element: HTMLElement } => {
      const node = this.#nodeOf(event.target);
      const folder = node ? (node.type === 'dir' ? node : (node.parent ?? this.#root)) : this.#root;
      return { folder, element: folder === this.#root || !folder.item ? this.list : folder.item };
    };
    const setDropTarget = (element: HTMLElement | undefined) => {
      if (this.#dropTarget === element) return;
      this.#dropTarget?.classList.remove('drop-target');
      this.#dropTarget = element;
      element?.classList.add('drop-target');
    };
    this.element.addEventListener('dragover', (event) => {
      if (!event.dataTransfer?.types.includes('Files')) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = 'copy';
      setDropTarget(targetOf(event).element);
    });
    this.element.addEventListener('dragleave', (event) => {
      if (!this.element.contains(event.relatedTarget as Node | null)) setDropTarget(undefined);
    });
    this.element.addEventListener('drop', (event) => {
      if (!event.dataTransfer?.types.includes('Files')) return;
      event.preventDefault();
      setDropTarget(undefined);
      const { folder } = targetOf(event);
      void this.upload(folder, readDrop(event.dataTransfer));
    });
  }

  /** Synchronous, so that `preventDefault` comes in time (Space and the arrows would scroll the side bar). */
  #onKey(event: KeyboardEvent): void {
    if ((event.target as Element).closest('input')) return;
    const visible = this.#visible();
    const node = this.#active && visible.includes(this.#active) ? this.#active : undefined;
    const index = node ? visible.indexOf(node) : -1;
    const go = (to: TreeNode | undefined) => to && this.#setActive(to);
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    switch (event.key) {
      case 'ArrowDown':
        go(visible[Math.min(index + 1, visible.length - 1)]);
        break;
      case 'ArrowUp':
        go(visible[Math.max(index - 1, 0)]);
        break;
      case 'Home':
        go(visible[0]);
        break;
      case 'End':
        go(visible[visible.length - 1]);
        break;
      case 'ArrowRight':
        if (node?.type !== 'dir') break;
        if (!node.expanded) void this.#expand(node);
        else go(node.children?.[0]);
        break;
      case 'ArrowLeft':
        if (!node) break;
        if (node.type === 'dir' && node.expanded) this.#collapse(node);
        else if (node.parent && node.parent !== this.#root) go(node.parent);
        break;
      case 'Enter':
        if (!node) break;
        if (node.type === 'dir') void this.#toggle(node);
        else void this.#open(node);
        break;
      case ' ':
        if (node?.type === 'dir') void this.#toggle(node);
        break;
      case 'F2':
        if (node) this.startRename(node);
        break;
      case 'Delete':
        if (node) void this.remove(node);
        break;
      case 'ContextMenu':
        this.#keyMenu(node);
        break;
      case 'F10':
        if (!event.shiftKey) return;
        this.#keyMenu(node);
        break;
      default:
        if (event.key.length === 1 && event.key !== ' ') {
          this.#jumpTo(event.key, visible, index);
          break;
        }
        return;
    }
    event.preventDefault();
  }

  #keyMenu(node: TreeNode | undefined): void {
    const box = (node?.item?.firstElementChild ?? this.list).getBoundingClientRect();
    this.#menuFor(node, { x: box.left + 16, y: box.bottom });
  }

  /** Type-ahead: letters typed within a second find the next item whose name starts with them. */
  #jumpTo(key: string, visible: TreeNode[], index: number): void {
    const now = performance.now();
    this.#typeAhead.text = now - this.#typeAhead.at < 1000 ? this.#typeAhead.text + key.toLowerCase() : key.toLowerCase();
    this.#typeAhead.at = now;
    const text = this.#typeAhead.text;
    const start = text.length > 1 ? Math.max(index, 0) : index + 1;
    for (let i = 0; i < visible.length; i++) {
      const candidate = visible[(start + i) % visible.length]!;
      if (candidate.name.toLowerCase().startsWith(text)) {
        this.#setActive(candidate);
        return;
      }
    }
  }
}

/** Why a typed name cannot be used, or undefined. Names may hold `/` (a path below the folder). */
function nameProblem(name: string): string | undefined {
  if (name.includes('\\')) return 'a name cannot hold a backslash';
  if (name.includes('\0')) return 'a name cannot hold a NUL character';
  if (name.startsWith('/')) return 'a name cannot start with /';
  for (const part of name.split('/')) {
    if (part === '') return 'a name cannot hold an empty part (//, or / at the end)';
    if (part === '.' || part === '..') return 'a name cannot hold . or .. parts';
  }
  return undefined;
}

/** `a.txt` → `a copy.txt`, then `a copy 2.txt`, … (the first free one). */
export function copyName(name: string, taken: ReadonlySet<string>): string {
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  for (let n = 1; ; n++) {
    const candidate = `${stem} copy${n === 1 ? '' : ` ${n}`}${ext}`;
    if (!taken.has(candidate)) return candidate;
  }
}

function verbOf(kind: Editing['kind']): string {
  return { file: 'New file', dir: 'New folder', rename: 'Rename to', copy: 'Copy to' }[kind];
}

function pastOf(kind: Editing['kind']): string {
  return { file: 'Created', dir: 'Created', rename: 'Renamed to', copy: 'Copied to' }[kind];
}

