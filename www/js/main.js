// The playground: wires the editor, the controls, the views and the lab
// that runs programs. The lab, the mesh helpers and the report view are the
// npm package's (npm/src), bundled into the page by scripts/build-page.mjs.
import { createLab, ShardlabError } from '../../npm/src/index.js';
import { findMesh, rewriteMesh, parseShape, parseNames, checkMesh, meshesByName } from '../../npm/src/mesh.js';
import { MAX_DEVICES } from '../../npm/src/options.js';
import { el } from '../../npm/src/view/dom.js';
import { shownOutput } from '../../npm/src/view/output.js';
import { renderReport } from '../../npm/src/view/report.js';
import { LazyEditor } from './lazy-editor.js';
import { EXAMPLES, loadExample } from './examples.js';
import { renameAxes, firstMeshNames } from './axes.js';
import { deviceNeeds, neededCount, devicesRefusal } from './device-count.js';
import { findShardMaps, parseSpec, checkSpec, specText, replaceRange } from './specs.js';
import { encodeState, decodeState } from './state.js';
import { asJax, download } from './download.js';
import { setUpGuide } from './guide.js';
import { EXERCISES, loadExercises, exerciseNamed, findExercise, loadProgress, saveProgress, renderStatement, failureLines, takesGrads, caseWhere } from './exercises.js';

const $ = (id) => document.getElementById(id);
const ui = {
  status: $('status'), example: $('example'), devices: $('devices'), shape: $('mesh-shape'),
  names: $('axis-names'), mode: $('mode'), run: $('run'), cancel: $('cancel'), share: $('share'),
  download: $('download'), info: $('run-info'), error: $('error'), lastGood: $('last-good'),
  stdout: $('stdout'), result: $('result'), report: $('report'),
  errorOutput: $('error-output'), errorStdout: $('error-stdout'),
  exercise: $('exercise'), exercisePanel: $('exercise-panel'), exerciseTitle: $('exercise-title'),
  statement: $('exercise-statement'), check: $('check'), reset: $('reset'), results: $('exercise-results'),
  verdict: $('verdict'), cases: $('cases'), output: document.querySelector('section.output'),
  devicesMsg: $('devices-msg'), meshMsg: $('mesh-msg'), specs: $('specs'), specsMsg: $('specs-msg'),
  devicesNote: $('devices-note'), stale: $('stale'),
};

let isolated = false;
let example = '';
// The open exercise ({ name, problem }), or null in the playground.
let exercise = null;
let editor;
// The text as the example or link gave it: other text is the visitor's
// edits, which choosing another example asks before dropping.
let pristine = '';
// The device count the code asked for when the controls last followed it.
let needKey = null;

// The page's one lab, started at once. 'auto' gives it device workers where
// the page is cross-origin isolated (and lockstep only elsewhere). Runs are
// parallel there unless the visitor picks lockstep; the device workers
// start with the first parallel run, so the first result is not held up
// by starting them before the engine is ready.
const labStarted = createLab({ devices: 8, mode: 'auto', startDevices: false });
labStarted.catch(() => {}); // shown by engineReady
let lab = null;

// Waits for the lab; false (with the reason in the status line) when the
// engine could not start.
async function engineReady() {
  try {
    lab = await labStarted;
  } catch (e) {
    ui.status.textContent = 'the engine failed to start: ' + ((e && e.message) || e);
    return false;
  }
  isolated = lab.mode === 'parallel';
  ui.mode.querySelector('[value=parallel]').disabled = !isolated;
  // Web Worker devices where the page can have them; lockstep is the
  // fallback without isolation.
  if (!isolated && ui.mode.value === 'parallel') ui.mode.value = 'lockstep';
  ui.status.textContent = modeLine() + ' · ready';
  return true;
}

function devices() {
  return Number(ui.devices.value);
}

function modeLine() {
  const n = devices();
  return ui.mode.value === 'parallel'
    ? `running in parallel: ${n} device Web Workers sharing a SharedArrayBuffer`
    : `running in lockstep: ${n} devices simulated in one worker` +
        (isolated ? ' (chosen under Mode)' : ' (this page is not cross-origin isolated, so parallel mode is off)');
}

// How a parallel run's maps ran: the engine may run a map in lockstep
// (one on more devices than there are device workers, say), and the status
// line says so rather than claim workers it did not use.
function mapsLine(report) {
  if (ui.mode.value !== 'parallel' || !report || !report.maps) return '';
  const lockstep = report.maps.filter((m) => m.mode === 'lockstep').length;
  if (!lockstep) return '';
  const all = report.maps.length;
  return ` (${lockstep} of ${all} map${all > 1 ? 's' : ''} ran in lockstep)`;
}

// Keeps the state in the URL. `push` makes it a new history entry (a new
// example or a control), so Back returns to the one before; typing and runs
// replace the current entry.
//
// The write itself waits for a task of its own: with the program in the
// hash, Chromium spends several milliseconds in each pushState, which would
// otherwise come between an edit and the run it starts (docs/page.md,
// "Edit to result"). Writes asked for meanwhile are one write, a new entry
// if any of them asked for one.
let pendingSave = null;

function saveState(push = false) {
  if (pendingSave) {
    pendingSave.push ||= push;
    return;
  }
  pendingSave = { push };
  setTimeout(writeState, 0);
}

function writeState() {
  const save = pendingSave;
  pendingSave = null;
  if (!save) return;
  const hash = exercise
    ? '#exercise=' + encodeURIComponent(exercise.name)
    : encodeState({ code: editor.text, devices: devices(), mode: ui.mode.value, example });
  if (hash === location.hash) return;
  if (save.push) history.pushState(null, '', hash);
  else history.replaceState(null, '', hash);
}

// The axis names of the mesh a shard_map call uses, or null when unknown.
function meshNamesFor(call, source) {
  const meshes = meshesByName(source);
  if (call.mesh && meshes[call.mesh]) return meshes[call.mesh].names;
  const all = Object.values(meshes);
  return !call.mesh && all.length === 1 ? all[0].names : null;
}

// One text field per P(...) of every shard_map's in_specs and out_specs.
function renderSpecControls() {
  const calls = findShardMaps(editor.text);
  setMsg(ui.specsMsg, [], null);
  ui.specs.replaceChildren(...calls.map((call, c) => {
    const where = `shard_map at line ${call.line}`;
    const group = (kind) => {
      const spec = call[kind];
      if (!spec) return null;
      const fields = spec.specs.length
        ? spec.specs.map((s, j) => el('input', {
          type: 'text', class: 'spec-field', value: s.text, size: Math.max(6, s.text.length + 1),
          'aria-label': spec.specs.length === 1 ? `${kind} of ${where}` : `${kind} ${j} of ${where}`,
          'data-call': c, 'data-kind': kind, 'data-spec': j, 'aria-describedby': 'specs-msg',
          onchange: (e) => applySpec(e.target),
        }))
        : [el('code', { title: 'not written as P(...) here, edit it in the code' }, spec.text)];
      return el('span', { class: 'spec-group' },
        el('span', { class: 'dim' }, kind), fields);
    };
    return el('div', { class: 'spec-call', 'data-line': call.line, role: 'group', 'aria-label': `specs of ${where}` },
      el('span', { class: 'spec-where' }, where), group('in_specs'), group('out_specs'));
  }));
}

// Applies one spec field to the program, or refuses it with the reason.
function applySpec(input) {
  const source = editor.text;
  const call = findShardMaps(source)[Number(input.dataset.call)];
  const spec = call && call[input.dataset.kind] && call[input.dataset.kind].specs[Number(input.dataset.spec)];
  const label = input.getAttribute('aria-label');
  if (!spec) return;
  const parsed = parseSpec(input.value);
  const reason = parsed.error || checkSpec(parsed.entries, meshNamesFor(call, source));
  if (reason) {
    setMsg(ui.specsMsg, [input], `${label}: ${reason}`);
    return;
  }
  const head = /^[\w.]+/.exec(spec.text)[0];
  editor.set(replaceRange(source, spec.start, spec.end, specText(parsed.entries, head)));
  syncControls();
  saveState(true);
  run();
}

// Sets Devices to the count the code asks for when that changed (or when
// Devices cannot run it), and says which line asks, beside the control.
// With `follow` false (a link, Back) Devices stays as it is.
function followDevices(follow) {
  const need = deviceNeeds(editor.text);
  const key = need ? `${need.exact}/${need.atLeast}` : null;
  if (follow && need && (key !== needKey || devicesRefusal(devices(), need))) ui.devices.value = String(neededCount(need));
  needKey = key;
  const line = need && (need.because.find((b) => b.flag) || need.because[0]);
  ui.devicesNote.textContent = line ? `set by line ${line.line}: ${line.text}` : '';
}

// Reflects the program's mesh, specs and device count in the controls.
function syncControls({ follow = true } = {}) {
  followDevices(follow);
  renderSpecControls();
  const mesh = findMesh(editor.text);
  ui.shape.disabled = ui.names.disabled = !mesh;
  if (!mesh) {
    // A mesh over devices built elsewhere (Mesh(devices, ('x',))): its
    // names can still be renamed everywhere; its shape is the code's.
    const named = firstMeshNames(editor.text);
    ui.names.disabled = !named;
    ui.shape.value = '';
    ui.names.value = named ? named.names.join(',') : '';
    ui.shape.placeholder = named ? 'in the code' : 'no Mesh line';
    ui.names.placeholder = 'no Mesh line';
    return;
  }
  ui.shape.value = mesh.shape.join('x');
  ui.names.value = mesh.names.join(',');
  setMsg(ui.meshMsg, [ui.shape, ui.names], null);
}

function setMsg(box, inputs, reason) {
  box.textContent = reason || '';
  for (const i of inputs) i.setAttribute('aria-invalid', reason ? 'true' : 'false');
  if (reason) markStale(`${reason}.`);
}

// Greys the results shown, which no longer match the code or the controls,
// and says why and what to change; the next good run clears it.
function markStale(reason) {
  ui.lastGood.classList.add('stale');
  ui.report.classList.add('stale');
  ui.stale.textContent = `Stale: the results below are from the last run that worked. ${reason}`;
  ui.stale.hidden = false;
}

function clearStale() {
  ui.lastGood.classList.remove('stale');
  ui.report.classList.remove('stale');
  ui.stale.hidden = true;
}

// Axis names where the Mesh shape control cannot rewrite the mesh: the
// rename alone, or false with the reason.
function renameOnly() {
  const named = firstMeshNames(editor.text);
  if (!named) return false;
  const names = parseNames(ui.names.value);
  if (names.error) return setMsg(ui.meshMsg, [ui.names], 'Axis names: ' + names.error), false;
  if (names.names.length !== named.names.length) {
    return setMsg(ui.meshMsg, [ui.names], `Axis names: the mesh at line ${named.line} has ${named.names.length} axes; change their number in the code`), false;
  }
  const renamed = renameAxes(editor.text, new Map(named.names.map((a, i) => [a, names.names[i]])));
  if (renamed.error) return setMsg(ui.meshMsg, [ui.names], 'Axis names: ' + renamed.error), false;
  setMsg(ui.meshMsg, [ui.names], null);
  editor.set(renamed.source);
  syncControls();
  saveState(true);
  return true;
}

// Applies the controls to the program; false (with the reason shown at the
// control) when they are refused.
function applyControls(changed) {
  const n = devices();
  if (!Number.isInteger(n) || n < 1 || n > MAX_DEVICES) {
    setMsg(ui.devicesMsg, [ui.devices], `Devices must be a whole number from 1 to ${MAX_DEVICES}`);
    return false;
  }
  const needs = changed === 'devices' && devicesRefusal(n, deviceNeeds(editor.text));
  if (needs) return setMsg(ui.devicesMsg, [ui.devices], 'Devices: ' + needs), false;
  setMsg(ui.devicesMsg, [ui.devices], null);
  const mesh = findMesh(editor.text);
  if (!mesh) return changed === 'names' ? renameOnly() : true;
  const shape = parseShape(ui.shape.value);
  if (shape.error) return setMsg(ui.meshMsg, [ui.shape], 'Mesh shape: ' + shape.error), false;
  const names = parseNames(ui.names.value);
  if (names.error) return setMsg(ui.meshMsg, [ui.names], 'Axis names: ' + names.error), false;
  let axisNames = names.names;
  if (changed === 'shape' && axisNames.length !== shape.shape.length) {
    // A new number of axes: keep the names there are, add or drop the rest.
    const spare = ['x', 'y', 'z', 'w', 'v'].filter((a) => !axisNames.includes(a));
    axisNames = axisNames.slice(0, shape.shape.length);
    while (axisNames.length < shape.shape.length) axisNames.push(spare.shift());
  }
  // make_mesh's axis_types gives one type per axis, so a new number of
  // axes would leave it wrong: that is the code's to change.
  if (changed === 'shape' && shape.shape.length !== mesh.shape.length && /\baxis_types\s*=/.test(mesh.keywords || '')) {
    const line = editor.text.slice(0, mesh.start).split('\n').length;
    const axes = (k) => `${k} ${k === 1 ? 'axis' : 'axes'}`;
    setMsg(ui.meshMsg, [ui.shape], `Mesh shape: line ${line} gives axis_types, one per axis: for a mesh of ${axes(shape.shape.length)}, `
      + `change that line in the code; here only the sizes of its ${axes(mesh.shape.length)} can change`);
    return false;
  }
  const reason = checkMesh(n, shape.shape, axisNames);
  if (reason) {
    const target = changed === 'devices' ? ui.devices : changed === 'names' ? ui.names : ui.shape;
    const box = changed === 'devices' ? ui.devicesMsg : ui.meshMsg;
    setMsg(box, [target], reason.charAt(0).toUpperCase() + reason.slice(1));
    return false;
  }
  let source = editor.text;
  if (changed === 'names' && axisNames.length === mesh.names.length) {
    // The program's other uses of the axes follow the new names.
    const renamed = renameAxes(source, new Map(mesh.names.map((a, i) => [a, axisNames[i]])));
    if (renamed.error) return setMsg(ui.meshMsg, [ui.names], 'Axis names: ' + renamed.error), false;
    source = renamed.source;
  }
  setMsg(ui.meshMsg, [ui.shape, ui.names], null);
  editor.set(rewriteMesh(source, shape.shape, axisNames));
  syncControls();
  saveState(true);
  return true;
}

function showError(e) {
  const where = e.line ? ` (line ${e.line}:${e.col})` : '';
  ui.error.textContent = `${e.type}: ${e.message}${where}`;
  ui.error.dataset.line = e.line || '';
  ui.error.hidden = false;
  // What the program printed before it failed, beside the error (the
  // greyed Output below is the last good run's).
  ui.errorStdout.textContent = e.stdout ? shownOutput(e.stdout) : '';
  ui.errorOutput.hidden = !e.stdout;
  editor.markError(e.line || null);
  markStale(e.line ? `Fix line ${e.line} (the error above) and the program runs again.` : 'Fix the error above and the program runs again.');
}

function showOutcome(run) {
  ui.error.hidden = true;
  ui.errorOutput.hidden = true;
  editor.markError(null);
  clearStale();
  ui.stdout.textContent = run.stdout ? shownOutput(run.stdout) : '(nothing printed)';
  const text = run.resultText;
  ui.result.textContent = text.length > 20000 ? text.slice(0, 20000) + '\n… (cut)' : text;
  const previous = document.getElementById('map-select');
  renderReport(ui.report, run.report, previous ? Number(previous.value) : 0, {
    grads: /\b(?:value_and_grad|grad|vjp)\s*\(/.test(editor.text),
    onLine: (line) => editor.showLine(line),
  });
}

// Edits to the code re-run it once typing pauses for this long. A run
// works off the page's thread and puts its outcome in the DOM in a few
// milliseconds, and a newer run cancels the one before it, so the pause
// only has to outlast the gap between keys of someone typing.
const EDIT_PAUSE_MS = 150;
let editTimer = null;

// A run that fails while the code is being typed shows its error only once
// typing has stopped for this long: half-typed code fails at most pauses,
// and the results would turn red and back as one types. Results that
// worked show at once.
const ERROR_QUIET_MS = 800;
let lastTyped = -Infinity;
let errorTimer = null;
// The latest run started: a delayed error is shown only if no run came after.
let latestRun = null;

// The run the page will show: its AbortController. A newer run, or Cancel,
// aborts it; the lab then drops it from its queue or stops it through the
// engine's cancel word (restarting the workers where there is none).
let current = null;

function progressLine({ maps, elapsedMs }) {
  const done = maps === 1 ? '1 map' : `${maps} maps`;
  return `${modeLine()} · running… ${done} done, ${(elapsedMs / 1000).toFixed(1)} s`;
}

// `typed`: the run typing started (its error may wait, see ERROR_QUIET_MS).
async function run({ typed = false } = {}) {
  clearTimeout(editTimer);
  clearTimeout(errorTimer);
  // An open exercise is graded by Check: a run would only define functions.
  if (!lab || exercise) return;
  saveState();
  // A Devices value the code cannot run with is explained at the control,
  // rather than run into an error about reshaping the device array.
  const needs = devicesRefusal(devices(), deviceNeeds(editor.text));
  if (needs) {
    setMsg(ui.devicesMsg, [ui.devices], 'Devices: ' + needs);
    ui.status.textContent = `${modeLine()} · not run: Devices does not fit the code`;
    return;
  }
  if (ui.devicesMsg.textContent.startsWith('Devices: ')) setMsg(ui.devicesMsg, [ui.devices], null);
  if (current) current.abort();
  const mine = new AbortController();
  current = mine;
  latestRun = mine;
  ui.run.disabled = true;
  ui.cancel.disabled = false;
  ui.status.textContent = modeLine() + ' · running…';
  const started = performance.now();
  let out = null;
  let error = null;
  try {
    out = await lab.run(editor.text, {
      devices: devices(),
      mode: ui.mode.value,
      signal: mine.signal,
      onProgress: (p) => {
        if (current === mine) ui.status.textContent = progressLine(p);
      },
    });
  } catch (e) {
    error = e;
  }
  // A later run has taken the page over: this one's outcome is not shown.
  if (current !== mine) return;
  current = null;
  ui.run.disabled = false;
  ui.cancel.disabled = true;
  const ms = (performance.now() - started).toFixed(0);
  const type = error instanceof ShardlabError ? error.type : null;
  if (type === 'Cancelled') {
    ui.status.textContent = 'cancelled';
    return;
  }
  if (error && type === null) {
    // Options the lab refused (a bad Devices value), or a lab whose workers
    // could not be started again.
    showError({ type: error.name || 'Error', message: error.message || String(error) });
    ui.status.textContent = 'failed';
    return;
  }
  if (type === 'InternalError') {
    // The engine trapped; the lab has restarted its workers.
    showError({ type, message: error.reason });
    ui.status.textContent = 'the engine failed';
    return;
  }
  const show = () => {
    if (error) showError({ type, message: error.reason, line: error.line, col: error.col, stdout: error.stdout });
    else showOutcome(out);
    ui.status.textContent = `${modeLine()} · ${error ? 'failed' : 'done'}${mapsLine(out && out.report)}`;
    ui.info.textContent = out
      ? `${out.elapsedMs.toFixed(0)} ms in the engine, ${ms} ms in all`
      : `${ms} ms in all`;
    if (!document.body.dataset.runs) document.body.dataset.firstResultMs = performance.now().toFixed(0);
    document.body.dataset.runs = String(Number(document.body.dataset.runs || 0) + 1);
  };
  const quiet = error && typed ? lastTyped + ERROR_QUIET_MS - performance.now() : 0;
  if (quiet <= 0) {
    show();
    return;
  }
  ui.status.textContent = `${modeLine()} · the error shows once typing stops`;
  errorTimer = setTimeout(() => {
    if (latestRun === mine) show();
  }, quiet);
}

// Stops the page's run; the status line says so once the lab has.
function cancel() {
  if (!current) return;
  current.abort();
  ui.status.textContent = modeLine() + ' · cancelling…';
}

async function pickExample(file, push = false) {
  closeExercise();
  example = file;
  ui.example.value = file;
  pristine = await loadExample(file);
  editor.set(pristine);
  needKey = null;
  // Devices follows the example's code; a program that sets no count runs on 8.
  if (!deviceNeeds(pristine)) ui.devices.value = '8';
  setMsg(ui.devicesMsg, [ui.devices], null);
  syncControls();
  saveState(push);
  await run();
}

// The Example menu (and the guided tour): edits to the code are dropped
// only when the visitor says so. Resolves once the example ran, or to false
// when the visitor kept their edits.
async function exampleChosen(file = ui.example.value) {
  if (!file) return false;
  if (!exercise && editor.text !== pristine && !window.confirm('Replace your edits to the code with this example? They are not saved.')) {
    ui.example.value = example;
    return false;
  }
  await pickExample(file, true);
  return true;
}

// Back and Forward: the state in the URL the browser returned to.
async function restoreHash() {
  if (exerciseNamed(location.hash)) await loadExercises();
  if (exerciseInHash()) {
    openExercise(exerciseInHash().name);
    return;
  }
  const saved = decodeState(location.hash, EXAMPLES.map((x) => x.file));
  if (!saved) {
    if (EXAMPLES.length) await pickExample(EXAMPLES[0].file);
    return;
  }
  if (saved.refused) return;
  closeExercise();
  ui.devices.value = String(saved.devices);
  ui.mode.value = isolated || saved.mode !== 'parallel' ? saved.mode : 'lockstep';
  example = saved.example;
  ui.example.value = EXAMPLES.some((x) => x.file === example) ? example : '';
  pristine = saved.code;
  editor.set(saved.code);
  setMsg(ui.devicesMsg, [ui.devices], null);
  syncControls({ follow: false });
  await run();
}

// The Exercises menu, with a mark on the problems solved.
function fillExerciseMenu() {
  const progress = loadProgress();
  const chosen = ui.exercise.value;
  ui.exercise.replaceChildren(new Option('(choose a problem)', ''));
  for (const x of EXERCISES) {
    const done = progress[x.name] && progress[x.name].solved;
    const option = new Option(`${done ? '✓ ' : ''}${x.problem.title}`, x.name);
    option.dataset.solved = done ? 'true' : 'false';
    ui.exercise.append(option);
  }
  ui.exercise.value = chosen;
}

// The exercise a `#exercise=NAME` link opens, or null.
function exerciseInHash() {
  const name = exerciseNamed(location.hash);
  return name ? findExercise(name) : null;
}

const REPORT_HEADING = 'What every device did';

// Opens a problem: its statement, the learner's last code (or the starter
// code), and no results until Check.
function openExercise(name) {
  const found = findExercise(name);
  if (!found) return;
  exercise = found;
  example = '';
  ui.example.value = '';
  ui.exercise.value = name;
  const { problem } = found;
  ui.exerciseTitle.textContent = problem.title;
  ui.statement.replaceChildren(...renderStatement(problem.statement));
  for (const node of [ui.exercisePanel, ui.check, ui.reset, ui.results]) node.hidden = false;
  ui.run.hidden = true;
  ui.output.hidden = true;
  ui.info.textContent = '';
  const saved = loadProgress()[name];
  editor.set(saved && typeof saved.code === 'string' ? saved.code : problem.starter);
  editor.markError(null);
  syncControls();
  const solved = saved && saved.solved;
  ui.verdict.textContent = solved ? 'Solved before. Check again to see every case.' : 'Press Check to grade your code.';
  ui.verdict.classList.toggle('solved', Boolean(solved));
  ui.cases.replaceChildren(...problem.cases.map((c, i) => el('li', { 'data-case': i },
    el('span', { class: 'mark' }, '·'), ' ', c.name || `case ${i + 1}`, c.hidden ? el('span', { class: 'dim' }, ' (hidden)') : null)));
  document.querySelector('section.report h2').textContent = REPORT_HEADING;
  ui.report.replaceChildren(el('p', { class: 'dim' }, 'A failing case shows its devices here.'));
  saveState();
}

// Back to the playground.
function closeExercise() {
  if (!exercise) return;
  exercise = null;
  ui.exercise.value = '';
  for (const node of [ui.exercisePanel, ui.check, ui.reset, ui.results]) node.hidden = true;
  ui.run.hidden = false;
  ui.output.hidden = false;
  document.querySelector('section.report h2').textContent = REPORT_HEADING;
}

// Draws the run report of a failing case in the device view.
function showCaseReport(c, index) {
  document.querySelector('section.report h2').textContent = `${REPORT_HEADING} in the failing case “${c.name}”`;
  for (const li of ui.cases.children) li.classList.toggle('shown', Number(li.dataset.case) === index);
  renderReport(ui.report, c.report, 0, { grads: takesGrads(editor.text) });
}

function caseItem(c, index) {
  const lines = c.passed ? [] : failureLines(c);
  return el('li', { class: c.passed ? 'pass' : 'fail', 'data-case': index, 'data-passed': String(c.passed) },
    el('span', { class: 'mark' }, c.passed ? 'PASS' : 'FAIL'), ' ', c.name,
    el('span', { class: 'dim' }, ` (${caseWhere(c)}${c.hidden ? ', hidden' : ''})`),
    lines.length ? el('pre', {}, lines.join('\n')) : null,
    c.report ? el('button', { type: 'button', onclick: () => showCaseReport(c, index) }, 'Show its devices') : null);
}

function renderVerdict(verdict) {
  const passed = verdict.cases.filter((c) => c.passed).length;
  ui.verdict.textContent = verdict.passed
    ? `Solved: all ${verdict.cases.length} cases pass.`
    : `${passed} of ${verdict.cases.length} cases pass.`;
  ui.verdict.classList.toggle('solved', verdict.passed);
  ui.cases.replaceChildren(...verdict.cases.map(caseItem));
  const error = verdict.cases.find((c) => c.error && c.error.line);
  editor.markError(error ? error.error.line : null);
  const failing = verdict.cases.findIndex((c) => !c.passed && c.report);
  if (failing >= 0) showCaseReport(verdict.cases[failing], failing);
  else ui.report.replaceChildren(el('p', { class: 'dim' }, 'Every case passed.'));
}

// Grades the editor's code on every case of the open problem.
async function checkExercise() {
  if (!exercise || !lab) return;
  const mine = exercise;
  ui.check.disabled = true;
  ui.status.textContent = 'checking…';
  let verdict = null;
  try {
    verdict = await lab.check(editor.text, mine.problem, { mode: 'lockstep' });
  } catch (e) {
    ui.verdict.textContent = `The check failed: ${(e && (e.reason || e.message)) || e}`;
  }
  ui.check.disabled = false;
  ui.status.textContent = modeLine() + ' · ready';
  if (verdict && exercise === mine) {
    renderVerdict(verdict);
    saveProgress(mine.name, verdict.passed ? { solved: true, code: editor.text } : { code: editor.text });
    fillExerciseMenu();
  }
  document.body.dataset.checks = String(Number(document.body.dataset.checks || 0) + 1);
}

// A link decodeState refused: nothing runs. The page opens with the link's
// program when it could be read (the first example otherwise), its own
// Devices and Mode, and the reason in the status line.
async function openRefused(saved) {
  if (saved.code === null) {
    example = EXAMPLES[0].file;
    ui.example.value = example;
    try {
      editor.set(await loadExample(example));
    } catch {
      // The reason below is what matters; the editor stays empty.
    }
  }
  pristine = editor.text;
  syncControls({ follow: false });
  if (await engineReady()) ui.status.textContent = `${modeLine()} · the link was not run: ${saved.refused}`;
  ui.info.textContent = 'press Run to run the program';
}

async function start() {
  ui.example.append(new Option('(your program)', ''));
  for (const ex of EXAMPLES) {
    ui.example.append(new Option(ex.title, ex.file));
  }
  const saved = decodeState(location.hash, EXAMPLES.map((x) => x.file));
  // The problems come after the first result, unless the link opens one.
  if (exerciseNamed(location.hash)) await loadExercises();
  fillExerciseMenu();
  editor = new LazyEditor($('editor'), (saved && saved.code) || '', () => {
    if (exercise) {
      // An exercise is graded with Check, not run at every pause; the
      // learner's code is kept for their next visit.
      saveProgress(exercise.name, { code: editor.text });
      return;
    }
    example = '';
    ui.example.value = '';
    lastTyped = performance.now();
    syncControls();
    saveState();
    clearTimeout(editTimer);
    editTimer = setTimeout(() => run({ typed: true }), EDIT_PAUSE_MS);
  });
  ui.example.addEventListener('change', () => exampleChosen());
  setUpGuide($('guide'), $('guide-start'), (file) => exampleChosen(file));
  ui.devices.addEventListener('change', () => applyControls('devices') && (saveState(true), run()));
  ui.shape.addEventListener('change', () => applyControls('shape') && run());
  ui.names.addEventListener('change', () => applyControls('names') && run());
  ui.mode.addEventListener('change', () => (saveState(true), run()));
  window.addEventListener('popstate', () => {
    // Back or Forward wins over a write not yet made.
    pendingSave = null;
    restoreHash();
  });
  ui.run.addEventListener('click', () => run());
  ui.exercise.addEventListener('change', () => (ui.exercise.value ? openExercise(ui.exercise.value) : closeExercise()));
  ui.check.addEventListener('click', () => checkExercise());
  ui.reset.addEventListener('click', () => {
    editor.set(exercise.problem.starter);
    saveProgress(exercise.name, { code: editor.text });
  });
  ui.cancel.addEventListener('click', () => cancel());
  ui.share.addEventListener('click', async () => {
    saveState();
    writeState();
    try {
      await navigator.clipboard.writeText(location.href);
      ui.info.textContent = 'link copied';
    } catch {
      ui.info.textContent = 'the link is in the address bar';
    }
  });
  ui.download.addEventListener('click', () => download('program.py', asJax(editor.text, devices())));
  document.addEventListener('keydown', (e) => {
    if ((e.ctrlKey || e.metaKey) && e.key === 'Enter') (exercise ? checkExercise() : run());
  });
  const wanted = exerciseInHash();
  if (wanted) {
    openExercise(wanted.name);
    await engineReady();
  } else if (saved && saved.refused) {
    await openRefused(saved);
  } else if (saved) {
    ui.devices.value = String(saved.devices);
    ui.mode.value = saved.mode;
    example = saved.example;
    ui.example.value = EXAMPLES.some((x) => x.file === example) ? example : '';
    pristine = saved.code;
    // The link's Devices stands; the code's count is only shown (and a
    // Devices value the code cannot run with is explained by run()).
    syncControls({ follow: false });
    if (await engineReady()) await run();
  } else if (await engineReady()) {
    await pickExample(EXAMPLES[0].file);
  }
}

// CodeMirror and the exercises come after the first result (or once start
// gave up on one).
start().finally(() => {
  if (editor) editor.load();
  loadExercises().then(fillExerciseMenu);
});
