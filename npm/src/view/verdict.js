// Text of a graded case, shared by <shardlab-exercise> and the page.

// What went wrong in a failing case, one line each: the learner's error at
// its line, the value mismatches, then the run checks that failed.
export function failureLines(c) {
  const lines = [];
  if (c.error) {
    const at = c.error.line ? ` (line ${c.error.line}, col ${c.error.col})` : '';
    lines.push(`${c.error.type}: ${c.error.message}${at}`);
  }
  lines.push(...c.mismatches);
  for (const k of c.checks) if (!k.passed) lines.push(`check '${k.check}' failed: ${k.detail || ''}`);
  return lines;
}

// Whether a solution takes gradients: its failing case's device view then
// shows what pmean/psum of the gradients inside maps gives.
export function takesGrads(source) {
  return /\b(?:value_and_grad|grad|vjp)\s*\(/.test(source);
}
