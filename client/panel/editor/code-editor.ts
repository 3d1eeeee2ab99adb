/**
 * The editor itself: CodeMirror 6 (basicSetup) with the language of the file's name, loaded when a file needs it
 * (@codemirror/language-data's descriptions each import their language lazily, so esbuild puts every language in a
 * chunk of its own). This module is itself loaded on the first text file, so the panel's first load carries no
 * editor code. The merge view (for a conflict's "compare") is one more chunk, loaded on first use.
 */
import { LanguageDescription } from '@codemirror/language';
import { languages } from '@codemirror/language-data';
import { Compartment, EditorState, Prec, type Extension, type Text } from '@codemirror/state';
import { EditorView, keymap } from '@codemirror/view';
import { basicSetup } from 'codemirror';

export interface CodeEditorOptions {
  parent: HTMLElement;
  path: string;
  doc: string;
  readOnly?: boolean;
  /** After every change of the document (the dirty state may have changed). */
  onDocChange?: () => void;
  /** The caret moved (1-based line and column). */
  onCaret?: (line: number, column: number) => void;
  /** Ctrl/Cmd-S. */
  onSave?: () => void;
}

const theme = EditorView.theme({
  '&': { height: '100%', backgroundColor: 'var(--bg)', color: 'var(--fg)', fontSize: '13px' },
  '.cm-scroller': { fontFamily: 'var(--mono)', lineHeight: '1.5' },
  '.cm-gutters': { backgroundColor: 'var(--bg-side)', color: 'var(--fg-dim)', borderRight: '1px solid var(--border)' },
});

/** The language support for a file name, or nothing (plain text) when no description matches or it fails to load. */
export async function languageFor(path: string): Promise<Extension> {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const description = LanguageDescription.matchFilename(languages, name);
  if (!description) return [];
  return description.support ?? (await description.load());
}

export class CodeEditor {
  readonly view: EditorView;
  #saved: Text;
  readonly #language = new Compartment();
  #destroyed = false;

  constructor(options: CodeEditorOptions) {
    const listener = EditorView.updateListener.of((update) => {
      if (update.docChanged) options.onDocChange?.();
      if (update.docChanged || update.selectionSet) {
        const head = update.state.selection.main.head;
        const line = update.state.doc.lineAt(head);
        options.onCaret?.(line.number, head - line.from + 1);
      }
    });
    const save = Prec.highest(
      keymap.of([
        {
          key: 'Mod-s',
          preventDefault: true,
          run: () => {
            options.onSave?.();
            return true;
          },
        },
      ]),
    );
    this.view = new EditorView({
      parent: options.parent,
      state: EditorState.create({
        doc: options.doc,
        extensions: [save, basicSetup, theme, this.#language.of([]), listener, options.readOnly ? EditorState.readOnly.of(true) : []],
      }),
    });
    this.#saved = this.view.state.doc;
    void languageFor(options.path).then(
      (language) => {
        if (this.#destroyed) return;
        this.view.dispatch({ effects: this.#language.reconfigure(language) });
      },
      (error: unknown) => console.warn(`panel: no highlighting for ${options.path}`, error),
    );
  }

  text(): string {
    return this.view.state.doc.toString();
  }

  /** The document as it is now: hand it to `markSaved` once a save of it succeeded. */
  snapshot(): Text {
    return this.view.state.doc;
  }

  /** Whether the document differs from what was last loaded or saved. */
  get dirty(): boolean {
    return !this.view.state.doc.eq(this.#saved);
  }

  markSaved(doc: Text = this.view.state.doc): void {
    this.#saved = doc;
  }

  caretLine(): number {
    return this.view.state.doc.lineAt(this.view.state.selection.main.head).number;
  }

  lineCount(): number {
    return this.view.state.doc.lines;
  }

  /** Replaces the whole text (a reload from disk) and marks it saved; the caret stays on its line number. */
  replace(text: string): void {
    const line = this.caretLine();
    this.view.dispatch({ changes: { from: 0, to: this.view.state.doc.length, insert: text } });
    this.#saved = this.view.state.doc;
    this.goTo(Math.min(line, this.view.state.doc.lines), undefined, false);
  }

  /** Appends text at the end (a paged file's next window), leaving the caret where it is. */
  append(text: string): void {
    const end = this.view.state.doc.length;
    this.view.dispatch({ changes: { from: end, insert: text } });
    this.#saved = this.view.state.doc;
  }

  /** Puts the caret at the start of `line` (1-based; clamped), or at `column` in it, and scrolls it to the middle. */
  goTo(line: number, column?: number, focus = true): void {
    const doc = this.view.state.doc;
    const target = doc.line(Math.max(1, Math.min(line, doc.lines)));
    const offset = Math.min(target.from + Math.max(0, (column ?? 1) - 1), target.to);
    this.view.dispatch({ selection: { anchor: offset }, effects: EditorView.scrollIntoView(offset, { y: 'center' }) });
    if (focus) this.view.focus();
  }

  focus(): void {
    this.view.focus();
  }

  destroy(): void {
    this.#destroyed = true;
    this.view.destroy();
  }
}

/** A side-by-side comparison, both sides read-only: `theirs` (the disk) on the left, `mine` (the editor) on the right. */
export async function showComparison(parent: HTMLElement, path: string, theirs: string, mine: string): Promise<{ destroy(): void }> {
  const [{ MergeView }, language] = await Promise.all([import('@codemirror/merge'), languageFor(path).catch(() => [])]);
  const side = (doc: string) => ({ doc, extensions: [basicSetup, theme, language, EditorState.readOnly.of(true), EditorView.editable.of(false)] });
  return new MergeView({ a: side(theirs), b: side(mine), parent, gutter: true, highlightChanges: true });
}
