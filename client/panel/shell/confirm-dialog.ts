import { h } from '../dom.ts';
import './confirm-dialog.css';

let nextId = 0;

/**
 * A modal question in the page (never `window.confirm`, which blocks): resolves true when confirmed, false on
 * Cancel or Escape. A `danger` action (delete, replace) gets the focus on Cancel, so an Enter pressed by habit
 * does not destroy anything (WAI-ARIA practices for destructive dialogs); otherwise the action is focused.
 */
export function confirmDialog(options: { title: string; message: string; confirm: string; danger?: boolean }): Promise<boolean> {
  return new Promise((resolve) => {
    const id = `confirm-dialog-${++nextId}`;
    const yes = h('button', { type: 'button', class: options.danger ? 'danger' : 'primary' }, options.confirm);
    const no = h('button', { type: 'button' }, 'Cancel');
    const dialog = h(
      'dialog',
      { class: 'confirm-dialog', 'aria-labelledby': `${id}-title`, 'aria-describedby': `${id}-message` },
      h('h2', { id: `${id}-title` }, options.title),
      h('p', { id: `${id}-message` }, options.message),
      h('div', { class: 'confirm-dialog-buttons' }, no, yes),
    );
    if (options.danger) dialog.setAttribute('role', 'alertdialog');
    let answered = false;
    const answer = (value: boolean) => {
      if (answered) return;
      answered = true;
      dialog.close();
      dialog.remove();
      resolve(value);
    };
    yes.addEventListener('click', () => answer(true));
    no.addEventListener('click', () => answer(false));
    dialog.addEventListener('cancel', (event) => {
      event.preventDefault();
      answer(false);
    });
    document.body.append(dialog);
    dialog.showModal();
    (options.danger ? no : yes).focus();
  });
}
