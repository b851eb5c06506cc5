// What the page uses of CodeMirror, bundled by scripts/build-page.sh into
// www/vendor/codemirror.js.
export { EditorView, basicSetup } from 'codemirror';
export { python } from '@codemirror/lang-python';
export { StateEffect, StateField } from '@codemirror/state';
export { Decoration } from '@codemirror/view';
