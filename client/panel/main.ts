/** The web panel's entry (docs/panel.md): bundled by runtime/panel/build-panel.ts, served at `/`. */
import '@xterm/xterm/css/xterm.css';
import './styles.css';
import { startPanel } from './start-panel.ts';

const root = document.getElementById('panel');
if (root) void startPanel(root);
