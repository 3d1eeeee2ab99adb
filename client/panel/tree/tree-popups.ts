import { h } from '../dom.ts';

export interface MenuItem {
  label: string;
  /** A key hint shown at the right (`F2`, `Del`). */
  hint?: string;
  run(): void;
}

/**
 * A context menu (role=menu) at a point: its first item focused, Up/Down/Home/End move, Enter or Space runs an
 * item, Escape, Tab or a click elsewhere closes it. `onClose` runs once however it closes (to give focus back),
 * before the chosen item runs.
 */
export function showMenu(at: { x: number; y: number }, label: string, items: MenuItem[], onClose: () => void): () => void {
  const menu = h('ul', { class: 'tree-menu', role: 'menu', 'aria-label': label });
  const buttons = items.map((item) => {
    const button = h('button', { type: 'button', role: 'menuitem', tabindex: '-1' }, h('span', {}, item.label), item.hint ? h('kbd', {}, item.hint) : null);
    button.addEventListener('click', () => {
      close();
      item.run();
    });
    menu.append(h('li', { role: 'none' }, button));
    return button;
  });
  let closed = false;
  const onPointer = (event: Event) => {
    if (!menu.contains(event.target as Node)) close();
  };
  function close() {
    if (closed) return;
    closed = true;
    document.removeEventListener('mousedown', onPointer, true);
    window.removeEventListener('blur', close);
    menu.remove();
    onClose();
  }
  menu.addEventListener('keydown', (event) => {
    const index = buttons.indexOf(document.activeElement as HTMLButtonElement);
    const move = (to: number) => buttons[(to + buttons.length) % buttons.length]?.focus();
    if (event.key === 'ArrowDown') move(index + 1);
    else if (event.key === 'ArrowUp') move(index - 1);
    else if (event.key === 'Home') move(0);
    else if (event.key === 'End') move(buttons.length - 1);
    else if (event.key === 'Escape' || event.key === 'Tab') close();
    else return;
    event.preventDefault();
    event.stopPropagation();
  });
  document.body.append(menu);
  // Keep it on screen.
  const box = menu.getBoundingClientRect();
  menu.style.left = `${Math.max(0, Math.min(at.x, window.innerWidth - box.width - 4))}px`;
  menu.style.top = `${Math.max(0, Math.min(at.y, window.innerHeight - box.height - 4))}px`;
  document.addEventListener('mousedown', onPointer, true);
  window.addEventListener('blur', close);
  buttons[0]?.focus();
  return close;
}
