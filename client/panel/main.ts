/** The web panel's entry (docs/panel.md): bundled by runtime/panel/build-panel.ts, served at `/`. */
import '@xterm/xterm/css/xterm.css';
import { messageOf } from './shared/errors.ts';
import { showUnavailable } from './shell/sign-in.ts';
import './styles.css';
import { startPanel } from './start-panel.ts';

const root = document.getElementById('panel');
if (root) startPanel(root).catch((error: unknown) => showUnavailable(root, `the panel could not start (${messageOf(error)})`));
