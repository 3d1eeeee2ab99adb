import { h, replaceChildren } from '../dom.ts';
import { saveToken, type SignInReason } from './session.ts';

export type { SignInReason };

/**
 * The screen for a page without a working token (docs/panel.md#sign-in): what happened, where the token comes from,
 * and a field to paste it. A pasted token is kept for this tab only, like one from the URL.
 */
export function showSignIn(root: HTMLElement, reason: SignInReason, storage: Storage, reload: () => void): void {
  const input = h('input', { type: 'password', name: 'token', autocomplete: 'off', 'aria-label': 'token', placeholder: 'token' });
  const form = h(
    'form',
    { class: 'sign-in-form' },
    input,
    h('button', { type: 'submit' }, 'Sign in'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const token = input.value.trim();
    if (token === '') return;
    saveToken(storage, token);
    reload();
  });
  root.classList.remove('panel');
  replaceChildren(
    root,
    h(
      'div',
      { class: 'sign-in', role: 'main', 'data-reason': reason },
      h('h1', {}, 'Sign in to this workspace'),
      h(
        'p',
        { class: 'sign-in-reason' },
        reason === 'refused' ? 'The token this page had was refused.' : 'This page has no token for this workspace.',
      ),
      h('p', {}, 'Open the URL workspace-api printed when it started (it ends in ?token=…), or paste the token here:'),
      form,
    ),
  );
  input.focus();
}

/** A workspace that cannot be reached or is not configured: the server's own words. */
export function showUnavailable(root: HTMLElement, message: string): void {
  root.classList.remove('panel');
  replaceChildren(root, h('div', { class: 'sign-in', role: 'main', 'data-reason': 'unavailable' }, h('h1', {}, 'This workspace is not available'), h('p', { class: 'sign-in-reason' }, message)));
}
