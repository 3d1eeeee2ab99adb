import type { PanelContext } from '../shell/panel-context.ts';

// Placeholder while this part is written (issue 19).
export function mountChat(_ctx: PanelContext): void {}
