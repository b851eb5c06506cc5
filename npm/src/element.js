// <shardlab-example>: an editable, runnable shardlab program with the
// playground's device view, in a shadow root.
//
//   <shardlab-example devices="4" mesh="2x2">
//   ...program text...
//   </shardlab-example>
//
// Attributes: devices (1-16, default 8), mesh ("2x2": rewrites the
// program's Mesh(...) line), src (a URL to load the program from, instead
// of the text content), mode (auto, parallel, lockstep). Every element on a
// page shares one lab, so runs from several elements queue. Importing this
// module also registers <shardlab-exercise> (exercise.js).
import { ShardlabError } from './index.js';
import { renderReport } from './view/report.js';
import { shownOutput } from './view/output.js';
import viewCss from './view/view.css';
import { sharedLab } from './shared-lab.js';
// Re-exported (element.d.ts declares it), which also keeps the module in the
// bundle: the package's sideEffects list names element.js alone, so a bare
// `import './exercise.js'` would be dropped, its element never registered.
import { ShardlabExercise } from './exercise.js';

// The report view's rules (the playground's too), with its :root variables
// moved to the element.
const CSS =
  viewCss.replace(/:root\b/g, ':host') +
  `
:host { display: block; border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; margin: 12px 0; }
textarea { box-sizing: border-box; width: 100%; min-height: 10em; font: 13px/1.4 ui-monospace, monospace;
  border: 1px solid var(--line); border-radius: 4px; padding: 6px; resize: vertical; }
.status { color: var(--dim); font-size: 12px; }
.out-label { color: var(--dim); font-size: 12px; font-weight: 600; }
.out { display: grid; gap: 6px; margin-top: 8px; }
.out:empty { display: none; }
[hidden] { display: none !important; }
`;

function attrDevices(text) {
  if (text === null) return 8;
  return /^\s*\d+\s*$/.test(text) ? Number(text) : NaN;
}

class ShardlabExample extends HTMLElement {
  #ui = null;
  #source = null;
  #controller = null;

  connectedCallback() {
    if (this.#ui) return;
    const root = this.attachShadow({ mode: 'open' });
    const style = document.createElement('style');
    style.textContent = CSS;
    const make = (tag, props = {}) => Object.assign(document.createElement(tag), props);
    const ui = {
      editor: make('textarea', { spellcheck: false, ariaLabel: 'Program' }),
      run: make('button', { id: 'run', textContent: 'Run' }),
      cancel: make('button', { id: 'cancel', textContent: 'Cancel', disabled: true }),
      status: make('span', { className: 'status' }),
      error: make('pre', { id: 'error', hidden: true }),
      // Over the output of a failed run, as on the playground page.
      stdoutLabel: make('div', { id: 'stdout-label', className: 'out-label', hidden: true, textContent: 'Output before the error' }),
      result: make('pre', { id: 'result', hidden: true }),
      stdout: make('pre', { id: 'stdout', hidden: true }),
      report: make('div', { className: 'report' }),
    };
    const actions = make('div', { className: 'actions' });
    actions.append(ui.run, ui.cancel, ui.status);
    const out = make('div', { className: 'out' });
    out.append(ui.error, ui.result, ui.stdoutLabel, ui.stdout);
    root.append(style, ui.editor, actions, out, ui.report);
    ui.run.addEventListener('click', () => this.run().catch(() => {}));
    ui.cancel.addEventListener('click', () => this.cancel());
    this.#ui = ui;
    this.#source = this.#loadSource();
  }

  async #loadSource() {
    const ui = this.#ui;
    const src = this.getAttribute('src');
    let text = this.textContent.replace(/^\s*\n/, '').replace(/\s+$/, '') + '\n';
    if (src) {
      ui.status.textContent = 'loading…';
      try {
        const res = await fetch(new URL(src, document.baseURI));
        if (!res.ok) throw new Error(`${res.status} ${res.statusText}`);
        text = await res.text();
        ui.status.textContent = '';
      } catch (e) {
        ui.status.textContent = `could not load ${src}: ${e.message}`;
      }
    }
    // Dedent what an HTML page indents.
    const lines = text.split('\n');
    const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => l.match(/^\s*/)[0].length));
    ui.editor.value = lines.map((l) => l.slice(Number.isFinite(indent) ? indent : 0)).join('\n');
  }

  /** The program in the editor. */
  get source() {
    return this.#ui ? this.#ui.editor.value : '';
  }

  set source(text) {
    if (this.#ui) this.#ui.editor.value = text;
  }

  /** Runs the program in the editor; resolves to the Run, or rejects. */
  async run() {
    const ui = this.#ui;
    await this.#source;
    const devices = attrDevices(this.getAttribute('devices'));
    const options = { devices };
    const mesh = this.getAttribute('mesh');
    if (mesh) options.mesh = mesh;
    const mode = this.getAttribute('mode');
    if (mode) options.mode = mode;
    this.#controller = new AbortController();
    options.signal = this.#controller.signal;
    options.onProgress = ({ maps, elapsedMs }) => {
      const done = `${maps} map${maps === 1 ? '' : 's'} done`;
      ui.status.textContent = `running… ${done} · ${(elapsedMs / 1000).toFixed(1)} s`;
    };
    ui.run.disabled = true;
    ui.cancel.disabled = false;
    ui.status.textContent = 'running…';
    for (const node of [ui.error, ui.result, ui.stdoutLabel, ui.stdout]) node.hidden = true;
    ui.report.classList.add('stale');
    try {
      const lab = await sharedLab(Number.isInteger(devices) ? devices : 8);
      const run = await lab.run(ui.editor.value, options);
      this.#show(run, null);
      ui.status.textContent = `${run.mode} on ${run.devices} device${run.devices === 1 ? '' : 's'} · ${run.elapsedMs.toFixed(1)} ms`;
      this.dispatchEvent(new CustomEvent('run', { detail: run }));
      return run;
    } catch (e) {
      this.#show(null, e);
      ui.status.textContent = e instanceof ShardlabError && e.type === 'Cancelled' ? 'cancelled' : 'failed';
      this.dispatchEvent(new CustomEvent('failed', { detail: e }));
      throw e;
    } finally {
      this.#controller = null;
      ui.run.disabled = false;
      ui.cancel.disabled = true;
    }
  }

  /** Stops this element's run (running or queued). */
  cancel() {
    if (this.#controller) this.#controller.abort();
  }

  #show(run, error) {
    const ui = this.#ui;
    ui.report.classList.remove('stale');
    if (error) {
      ui.error.hidden = false;
      ui.error.textContent = error.message;
      // What the program printed before it failed, under its own label.
      if (error.stdout) {
        ui.stdoutLabel.hidden = false;
        ui.stdout.hidden = false;
        ui.stdout.textContent = shownOutput(error.stdout);
      }
      if (error.report) renderReport(ui.report, error.report);
      else ui.report.replaceChildren();
      return;
    }
    ui.result.hidden = false;
    ui.result.textContent = run.resultText;
    ui.stdout.hidden = run.stdout === '';
    ui.stdout.textContent = shownOutput(run.stdout);
    renderReport(ui.report, run.report);
  }
}

if (!customElements.get('shardlab-example')) {
  customElements.define('shardlab-example', ShardlabExample);
}

export { ShardlabExample, ShardlabExercise };
