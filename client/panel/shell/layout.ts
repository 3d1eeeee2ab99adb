import { h, replaceChildren } from '../dom.ts';

/** A view in the side bar (Files, Search, Chat): its tab and its content. */
export interface SideView {
  id: string;
  title: string;
  element: HTMLElement;
  /** Called each time the view is shown (e.g. to focus its input). */
  onShow?: () => void;
}

/**
 * The panel's regions: a top bar, a side bar of views with tabs, the editor area, the bottom panel (terminals)
 * and a status bar. Parts fill their region; the shell only arranges them.
 */
export class PanelShell {
  readonly root: HTMLElement;
  readonly topbar = h('header', { class: 'topbar' });
  readonly topbarActions = h('div', { class: 'topbar-actions' });
  readonly sideTabs = h('div', { class: 'side-tabs', role: 'tablist', 'aria-label': 'views' });
  readonly sidebar = h('aside', { class: 'sidebar' });
  readonly editorArea = h('main', { class: 'editor-area', 'aria-label': 'editor' });
  readonly bottom = h('section', { class: 'bottom', 'aria-label': 'terminals' });
  readonly statusbar = h('footer', { class: 'statusbar', role: 'status', 'aria-live': 'polite' });
  readonly #views = new Map<string, { view: SideView; tab: HTMLButtonElement }>();

  constructor(root: HTMLElement, title: string) {
    this.root = root;
    root.classList.add('panel');
    this.topbar.append(h('span', { class: 'brand' }, title), this.topbarActions);
    this.sideTabs.addEventListener('keydown', (event) => this.#onTabKey(event));
    replaceChildren(
      root,
      this.topbar,
      h('div', { class: 'workbench' }, h('div', { class: 'side' }, this.sideTabs, this.sidebar), h('div', { class: 'center' }, this.editorArea, this.bottom)),
      this.statusbar,
    );
  }

  addView(view: SideView): void {
    const tab = h('button', { class: 'side-tab', role: 'tab', id: `tab-${view.id}`, 'aria-controls': `view-${view.id}`, 'aria-selected': 'false', tabindex: '-1', type: 'button' }, view.title);
    tab.addEventListener('click', () => this.showView(view.id));
    view.element.id = `view-${view.id}`;
    view.element.classList.add('side-view');
    view.element.setAttribute('role', 'tabpanel');
    view.element.setAttribute('aria-labelledby', tab.id);
    view.element.hidden = true;
    this.sideTabs.append(tab);
    this.sidebar.append(view.element);
    this.#views.set(view.id, { view, tab });
    if (this.#views.size === 1) this.showView(view.id);
  }

  showView(id: string): void {
    for (const [key, { view, tab }] of this.#views) {
      const shown = key === id;
      view.element.hidden = !shown;
      tab.setAttribute('aria-selected', String(shown));
      tab.tabIndex = shown ? 0 : -1;
      if (shown) view.onShow?.();
    }
  }

  /** The tab list is one tab stop (the shown view's tab): arrows (wrapping), Home and End show and focus another. */
  #onTabKey(event: KeyboardEvent): void {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const entries = [...this.#views.values()];
    const index = entries.findIndex(({ tab }) => tab === event.target);
    if (index < 0) return;
    const to =
      event.key === 'ArrowRight' || event.key === 'ArrowDown' ? entries[(index + 1) % entries.length]
      : event.key === 'ArrowLeft' || event.key === 'ArrowUp' ? entries[(index - 1 + entries.length) % entries.length]
      : event.key === 'Home' ? entries[0]
      : event.key === 'End' ? entries[entries.length - 1]
      : undefined;
    if (!to) return;
    event.preventDefault();
    this.showView(to.view.id);
    to.tab.focus(); // the view may have taken the focus when shown: moving along the tabs keeps it on them
  }

  addAction(label: string, title: string, onClick: () => void): HTMLButtonElement {
    const button = h('button', { class: 'action', type: 'button', title }, label);
    button.addEventListener('click', onClick);
    this.topbarActions.append(button);
    return button;
  }

  setStatus(message: string, kind: 'info' | 'error'): void {
    this.statusbar.textContent = message;
    this.statusbar.dataset.kind = kind;
  }
}
