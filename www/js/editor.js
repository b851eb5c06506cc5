// The code editor: CodeMirror 6 with Python highlighting and wrapped long
// lines, plus a mark on the line of an error.
import { EditorView, basicSetup } from 'codemirror';
import { python } from '@codemirror/lang-python';
import { StateEffect, StateField } from '@codemirror/state';
import { Decoration } from '@codemirror/view';

const setErrorLine = StateEffect.define();
const errorLine = StateField.define({
  create: () => Decoration.none,
  update(marks, tr) {
    marks = marks.map(tr.changes);
    for (const e of tr.effects) {
      if (e.is(setErrorLine)) {
        marks = e.value === null
          ? Decoration.none
          : Decoration.set([Decoration.line({ class: 'cm-error-line' }).range(e.value)]);
      }
    }
    return tr.docChanged ? Decoration.none : marks;
  },
  provide: (f) => EditorView.decorations.from(f),
});

export class Editor {
  constructor(parent, text, onChange) {
    this.view = new EditorView({
      doc: text,
      parent,
      extensions: [
        basicSetup,
        python(),
        // Long lines wrap, so no part of the program hides past the edge.
        EditorView.lineWrapping,
        errorLine,
        EditorView.contentAttributes.of({ 'aria-label': 'Program' }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged && !this.quiet) onChange(this.text);
        }),
      ],
    });
    this.quiet = false;
  }

  get text() {
    return this.view.state.doc.toString();
  }

  // Replaces the text without reporting it as an edit. Only the span that
  // differs is changed (a spec control rewrites a few characters), so
  // CodeMirror re-parses and redraws that much, and the selection and the
  // scroll position around it stay where they were.
  set(text) {
    const old = this.text;
    if (text === old) return;
    let from = 0;
    while (from < old.length && from < text.length && old[from] === text[from]) from++;
    let end = 0;
    while (end < old.length - from && end < text.length - from
      && old[old.length - 1 - end] === text[text.length - 1 - end]) end++;
    this.quiet = true;
    this.view.dispatch({ changes: { from, to: old.length - end, insert: text.slice(from, text.length - end) } });
    this.quiet = false;
  }

  // Selects 1-based `line` and scrolls to it (a collective's line in the
  // report).
  showLine(line) {
    const doc = this.view.state.doc;
    if (line < 1 || line > doc.lines) return;
    const { from, to } = doc.line(line);
    this.view.dispatch({ selection: { anchor: from, head: to }, scrollIntoView: true });
    this.view.focus();
  }

  // Marks 1-based `line` as the error's (null clears it).
  markError(line) {
    const doc = this.view.state.doc;
    if (line === null || line < 1 || line > doc.lines) {
      // Every good run clears the mark: when there is none, that is no
      // transaction at all (each one costs the editor an update).
      if (this.view.state.field(errorLine).size) this.view.dispatch({ effects: setErrorLine.of(null) });
      return;
    }
    const at = doc.line(line).from;
    this.view.dispatch({
      effects: [setErrorLine.of(at), EditorView.scrollIntoView(at, { y: 'center' })],
    });
  }
}
