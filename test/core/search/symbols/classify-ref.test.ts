import { describe, expect, it } from 'vitest';
import { classifyRef, classifyRefLine, type RefKind } from '../../../../core/search/symbols/classify-ref.ts';

/** [line, kind]: the name is `Widget` (matched case-insensitively by the caller), at its first occurrence. */
const CASES: [string, RefKind][] = [
  // import: the line starts with import / from / export { / use, or has require(
  ["import { Widget } from './widgets';", 'import'],
  ['  import Widget from "w"', 'import'],
  ['from widgets import Widget', 'import'],
  ['export { Widget } from "./widgets";', 'import'],
  ['export {Widget};', 'import'],
  ['use crate::widgets::Widget;', 'import'],
  ["const Widget = require('./widget');", 'import'],
  // not imports: the word must be whole, `export` alone is not `export {`
  ['important(Widget)', 'text'],
  ['export default Widget;', 'text'],
  // write: name then = (not == or =>), or ++ -- += -=, or a prefix ++/--
  ['Widget = makeWidget();', 'write'],
  ['this.Widget=1', 'write'],
  ['Widget += 1', 'write'],
  ['Widget-= 1', 'write'],
  ['Widget++', 'write'],
  ['Widget --;', 'write'],
  ['++Widget;', 'write'],
  ['if (Widget == null) return;', 'text'],
  ['if (Widget === other) return;', 'text'],
  ['const f = Widget => 1;', 'text'],
  // call: name then ( or <, not after function def const let var class
  ['Widget(props)', 'call'],
  ['render(Widget (1))', 'call'],
  ['useState<Widget>()', 'text'],
  ['Widget<string>(x)', 'call'],
  ['new Widget()', 'call'],
  ['function Widget(props) {', 'text'],
  ['def Widget(self):', 'text'],
  ['class Widget(Base):', 'text'],
  ['const Widget<T> = 1', 'text'],
  ['a < Widget', 'text'],
  ['x = Widget < 2', 'text'],
  // type: after : (not ::), extends, implements, new, satisfies, as
  ['let w: Widget;', 'type'],
  ['function f(w:Widget) {}', 'type'],
  ['class Button extends Widget {', 'type'],
  ['class Button implements Widget {', 'type'],
  ['const w = new Widget;', 'type'],
  ['const w = x satisfies Widget;', 'type'],
  ['const w = x as Widget;', 'type'],
  ['const w = x has Widget;', 'text'],
  ['crate::Widget;', 'text'],
  // text
  ['// the Widget is drawn here', 'text'],
  ['return Widget;', 'text'],
];

describe('classifyRef (docs/intentic-search.md `refs`: the first kind that fits)', () => {
  it.each(CASES)('%j → %s', (line, kind) => {
    expect(classifyRef(line, 'Widget', line.indexOf('Widget'))).toBe(kind);
  });

  it('uses the occurrence it is given, not the first one on the line', () => {
    const line = 'log(widget); Widget = 2';
    expect(classifyRef(line, 'Widget', 4)).toBe('text');
    expect(classifyRef(line, 'Widget', 13)).toBe('write');
  });

  it('a line takes the first kind in order that any occurrence fits', () => {
    const line = 'f(a as Widget, Widget(1))';
    expect(classifyRefLine(line, 'Widget', [7, 15])).toBe('call');
    expect(classifyRefLine('Widget(x); Widget = y', 'Widget', [0, 11])).toBe('write');
    expect(classifyRefLine('see Widget', 'Widget', [4])).toBe('text');
  });
});
