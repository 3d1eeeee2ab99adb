/**
 * Whether a key event happened inside a terminal (its xterm element or the pane's host around it): the panel's
 * global shortcuts (Ctrl-P, Ctrl-Shift-F) leave those keys to the program in the terminal.
 */
export function inTerminal(target: EventTarget | null): boolean {
  return target instanceof Element && target.closest('.terminal-host, .xterm') !== null;
}
