// The Exercises menu: the graded problems of examples/exercises/ (bundled
// by scripts/build-page.mjs as the module 'shardlab:exercises', a chunk the
// page fetches after the first result, or first when a link names a
// problem), a learner's progress in localStorage, and the problem's
// statement and per-case results as DOM nodes.
import { el } from '../../npm/src/view/dom.js';
export { failureLines, takesGrads } from '../../npm/src/view/verdict.js';

// [{ name, problem }], in the menu's order; empty until loadExercises.
export let EXERCISES = [];
let loading = null;

// Fetches the problems once; resolves when EXERCISES holds them.
export function loadExercises() {
  if (!loading) {
    loading = import('shardlab:exercises').then((m) => {
      EXERCISES = m.default;
    });
  }
  return loading;
}

// The problem a link names (`#exercise=NAME`), or null.
export function exerciseNamed(hash) {
  return new URLSearchParams(hash.replace(/^#/, '')).get('exercise');
}

export function findExercise(name) {
  return EXERCISES.find((x) => x.name === name) || null;
}

const KEY = 'shardlab.exercises';

// { NAME: { solved, code } }: what the learner has solved and their last
// code for each problem. A store that cannot be read is an empty one.
export function loadProgress() {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) || '{}');
    return v && typeof v === 'object' ? v : {};
  } catch {
    return {};
  }
}

export function saveProgress(name, change) {
  const all = loadProgress();
  all[name] = { ...(all[name] || {}), ...change };
  try {
    localStorage.setItem(KEY, JSON.stringify(all));
  } catch {
    // Storage full or refused (a private window): progress is not kept.
  }
}

// `code`, **bold** and *emphasis* of one line, as nodes.
function inline(text) {
  return text.split(/(`[^`]*`|\*\*[^*]+\*\*|\*[^*\s][^*]*\*)/).filter((s) => s !== '').map((part) => {
    if (part.length > 1 && part.startsWith('`') && part.endsWith('`')) return el('code', {}, part.slice(1, -1));
    if (part.length > 4 && part.startsWith('**') && part.endsWith('**')) return el('b', {}, part.slice(2, -2));
    if (part.length > 2 && part.startsWith('*') && part.endsWith('*')) return el('em', {}, part.slice(1, -1));
    return document.createTextNode(part);
  });
}

// The statement's Markdown: paragraphs, numbered and bulleted lists and
// inline forms, built as nodes (never as HTML text).
export function renderStatement(markdown) {
  return markdown.split(/\n\s*\n/).map((block) => {
    const lines = block.split('\n').filter((l) => l.trim() !== '');
    if (lines.length && lines.every((l) => /^\s*\d+\.\s/.test(l))) {
      return el('ol', {}, lines.map((l) => el('li', {}, inline(l.replace(/^\s*\d+\.\s+/, '')))));
    }
    if (lines.length && lines.every((l) => /^\s*[-*]\s/.test(l))) {
      return el('ul', {}, lines.map((l) => el('li', {}, inline(l.replace(/^\s*[-*]\s+/, '')))));
    }
    return el('p', {}, inline(lines.join(' ')));
  });
}

// Where a case ran: `4 devices, mesh data=4`.
export function caseWhere(c) {
  const devices = c.devices === 1 ? '1 device' : `${c.devices} devices`;
  if (!c.mesh) return devices;
  const mesh = c.mesh.axes.map((a, i) => `${a}=${c.mesh.shape[i]}`).join(', ');
  return `${devices}, mesh ${mesh}`;
}
