// The code editor as the page first shows it: a plain text area with the
// program, replaced by CodeMirror (js/editor.js, bundled as a chunk of its
// own) once the first result is shown. CodeMirror's editing features are
// then not part of the first load; its Python grammar is, since
// js/syntax.js reads the program with it before the first run.
export class LazyEditor {
  constructor(parent, text, onChange) {
    this.parent = parent;
    this.onChange = onChange;
    this.cm = null;
    this.loading = null;
    this.area = document.createElement('textarea');
    this.area.className = 'plain-editor';
    this.area.spellcheck = false;
    this.area.value = text;
    this.area.setAttribute('aria-label', 'Program');
    this.area.addEventListener('input', () => onChange(this.area.value));
    parent.append(this.area);
  }

  get text() {
    return this.cm ? this.cm.text : this.area.value;
  }

  set(text) {
    if (this.cm) this.cm.set(text);
    else this.area.value = text;
  }

  // Selects 1-based `line` (a collective's line in the report).
  showLine(line) {
    if (this.cm) return this.cm.showLine(line);
    const lines = this.area.value.split('\n');
    if (line < 1 || line > lines.length) return;
    const from = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
    this.area.focus();
    this.area.setSelectionRange(from, from + lines[line - 1].length);
  }

  // Marks 1-based `line` as the error's (null clears it); the text area
  // keeps the mark for CodeMirror.
  markError(line) {
    this.errorLine = line;
    if (this.cm) this.cm.markError(line);
  }

  // Replaces the text area by CodeMirror, with the same text, selection
  // and error mark. Resolves once it is in place.
  load() {
    if (!this.loading) {
      this.loading = import('./editor.js').then(({ Editor }) => {
        const { selectionStart, selectionEnd } = this.area;
        const focused = document.activeElement === this.area;
        const cm = new Editor(this.parent, this.area.value, this.onChange);
        this.area.remove();
        this.cm = cm;
        if (this.errorLine !== undefined) cm.markError(this.errorLine);
        if (focused) {
          cm.view.dispatch({ selection: { anchor: selectionStart, head: selectionEnd } });
          cm.view.focus();
        }
      });
    }
    return this.loading;
  }
}
