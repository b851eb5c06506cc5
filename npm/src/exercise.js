// <shardlab-exercise>: a graded exercise (see docs/exercises.md): the
// problem's statement, an editor holding its starter code, a Check button,
// each case's verdict and the devices of a failing case (what each device
// held, which collectives ran over which axis), in a shadow root.
//
//   <shardlab-exercise src="global_sum.json"></shardlab-exercise>
//
// The problem comes from `src` (a URL), from a child
// <script type="application/json">, or from the `problem` property.
import { ShardlabError } from './index.js';
import { sharedLab } from './shared-lab.js';
import { failureLines, takesGrads } from './view/verdict.js';
import { renderReport } from './view/report.js';
import viewCss from './view/view.css';

// The device view's rules (the playground's), with its :root variables moved
// to the element, then the exercise's own.
const CSS = viewCss.replace(/:root\b/g, ':host') + `
:host { display: block; border: 1px solid #d0d7de; border-radius: 6px; padding: 10px 12px; margin: 12px 0;
  font: 14px/1.45 system-ui, sans-serif; }
h3 { margin: 0 0 6px; font-size: 16px; }
.statement p { margin: 4px 0; }
code, textarea, pre { font: 13px/1.4 ui-monospace, monospace; }
textarea { box-sizing: border-box; width: 100%; min-height: 14em; border: 1px solid #d0d7de; border-radius: 4px;
  padding: 6px; resize: vertical; }
.status { color: #6e7781; font-size: 12px; margin-left: 8px; }
ul { list-style: none; padding: 0; margin: 8px 0 0; }
li { margin: 4px 0; }
.pass b { color: #1a7f37; }
.fail b { color: #cf222e; }
pre { margin: 2px 0 0 1.5em; white-space: pre-wrap; }
li button { margin-left: 1.5em; font-size: 12px; }
li.shown { background: #fff8c5; }
h4 { margin: 12px 0 4px; font-size: 14px; }
[hidden] { display: none !important; }
`;

// A few Markdown forms of a statement: paragraphs, `code` and **bold**,
// built as DOM nodes (never as HTML text).
function renderStatement(root, markdown) {
  root.replaceChildren();
  for (const para of markdown.split(/\n\s*\n/)) {
    const p = document.createElement('p');
    for (const part of para.split(/(`[^`]*`|\*\*[^*]*\*\*)/)) {
      if (part.startsWith('`') && part.endsWith('`') && part.length > 1) {
        p.append(Object.assign(document.createElement('code'), { textContent: part.slice(1, -1) }));
      } else if (part.startsWith('**') && part.endsWith('**') && part.length > 3) {
        p.append(Object.assign(document.createElement('b'), { textContent: part.slice(2, -2) }));
      } else {
        p.append(part);
      }
    }
    root.append(p);
  }
}

class ShardlabExercise extends HTMLElement {
  #ui = null;
  #problem = null;
  #loading = null;

  connectedCallback() {
    if (this.#ui) return;
    const root = this.attachShadow({ mode: 'open' });
    const make = (tag, props = {}) => Object.assign(document.createElement(tag), props);
    const ui = {
      title: make('h3'),
      statement: make('div', { className: 'statement' }),
      editor: make('textarea', { spellcheck: false, ariaLabel: 'Solution' }),
      check: make('button', { id: 'check', textContent: 'Check' }),
      status: make('span', { className: 'status' }),
      results: make('ul', { id: 'results' }),
      reportTitle: make('h4', { id: 'report-title', hidden: true }),
      report: make('div', { className: 'report', id: 'report' }),
    };
    const actions = make('div', { className: 'actions' });
    actions.append(ui.check, ui.status);
    root.append(make('style', { textContent: CSS }), ui.title, ui.statement, ui.editor, actions, ui.results,
      ui.reportTitle, ui.report);
    ui.check.addEventListener('click', () => this.check().catch(() => {}));
    this.#ui = ui;
    this.#loading = this.#load();
  }

  async #load() {
    const src = this.getAttribute('src');
    const inline = this.querySelector('script[type="application/json"]');
    try {
      if (src) {
        const res = await fetch(new URL(src, document.baseURI));
        if (!res.ok) throw new Error(`${res.status} ${res.statusText}`);
        this.problem = await res.json();
      } else if (inline && !this.#problem) {
        this.problem = JSON.parse(inline.textContent);
      }
    } catch (e) {
      this.#ui.status.textContent = `could not load the problem: ${e.message}`;
    }
  }

  /** The problem (an object in the format of docs/exercises.md). */
  get problem() {
    return this.#problem;
  }

  set problem(p) {
    this.#problem = p;
    if (!this.#ui) return;
    this.#ui.title.textContent = p.title;
    renderStatement(this.#ui.statement, p.statement);
    this.#ui.editor.value = p.starter;
    this.#showCase(null);
    this.#ui.results.replaceChildren();
  }

  /** The solution in the editor. */
  get source() {
    return this.#ui ? this.#ui.editor.value : '';
  }

  set source(text) {
    if (this.#ui) this.#ui.editor.value = text;
  }

  /** Grades the solution in the editor; resolves to the verdict. */
  async check() {
    const ui = this.#ui;
    await this.#loading;
    if (!this.#problem) throw new Error('the exercise has no problem');
    ui.check.disabled = true;
    ui.status.textContent = 'checking…';
    try {
      const lab = await sharedLab(8);
      const verdict = await lab.check(ui.editor.value, this.#problem);
      this.#show(verdict);
      const passed = verdict.cases.filter((c) => c.passed).length;
      ui.status.textContent = `${passed} of ${verdict.cases.length} cases pass`;
      this.dispatchEvent(new CustomEvent('checked', { detail: verdict }));
      return verdict;
    } catch (e) {
      ui.status.textContent = e instanceof ShardlabError ? `${e.type}: ${e.message}` : String(e.message || e);
      throw e;
    } finally {
      ui.check.disabled = false;
    }
  }

  #show(verdict) {
    const items = verdict.cases.map((c, index) => {
      const li = document.createElement('li');
      li.className = c.passed ? 'pass' : 'fail';
      li.dataset.case = String(index);
      const where = c.mesh ? `mesh ${c.mesh.axes.map((a, i) => `${a}=${c.mesh.shape[i]}`).join(', ')}` : `${c.devices} devices`;
      const hidden = c.hidden ? ', hidden' : '';
      li.append(Object.assign(document.createElement('b'), { textContent: c.passed ? 'PASS' : 'FAIL' }), ` ${c.name} (${where}${hidden})`);
      if (!c.passed) li.append(Object.assign(document.createElement('pre'), { textContent: failureLines(c).join('\n') }));
      if (c.report) {
        const button = Object.assign(document.createElement('button'), { type: 'button', textContent: 'Show its devices' });
        button.addEventListener('click', () => this.#showCase(c, index));
        li.append(button);
      }
      return li;
    });
    this.#ui.results.replaceChildren(...items);
    const failing = verdict.cases.findIndex((c) => !c.passed && c.report);
    this.#showCase(failing >= 0 ? verdict.cases[failing] : null, failing);
  }

  // Draws the run report of a failing case (null: none) under the results.
  #showCase(c, index) {
    const ui = this.#ui;
    ui.reportTitle.hidden = !c;
    if (!c) {
      ui.report.replaceChildren();
      return;
    }
    ui.reportTitle.textContent = `Devices in the failing case “${c.name}”`;
    for (const li of ui.results.children) li.classList.toggle('shown', Number(li.dataset.case) === index);
    renderReport(ui.report, c.report, 0, { grads: takesGrads(ui.editor.value) });
  }
}

if (!customElements.get('shardlab-exercise')) {
  customElements.define('shardlab-exercise', ShardlabExercise);
}

export { ShardlabExercise };
