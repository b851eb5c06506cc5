// A program's printed output as it goes into the DOM: a program that prints
// without end would otherwise make the page lay out megabytes of text. Past
// the limits the text is cut at a line end and a note says how much was
// left out; the run's result (run.stdout) keeps all of it.

export const MAX_SHOWN_CHARS = 200000;
export const MAX_SHOWN_LINES = 5000;

// `text` within the limits, with a closing note when it was cut.
export function shownOutput(text, { maxChars = MAX_SHOWN_CHARS, maxLines = MAX_SHOWN_LINES } = {}) {
  let cut = Math.min(text.length, maxChars);
  let newline = -1;
  for (let lines = 0; lines < maxLines; lines += 1) {
    newline = text.indexOf('\n', newline + 1);
    if (newline < 0 || newline >= cut) break;
    if (lines === maxLines - 1) cut = newline + 1;
  }
  if (cut >= text.length) return text;
  // Cut at the last line end in reach, so no line is shown half.
  const lineEnd = text.lastIndexOf('\n', cut - 1);
  if (lineEnd >= 0) cut = lineEnd + 1;
  else if (/[\uD800-\uDBFF]/.test(text[cut - 1])) cut -= 1; // keep surrogate pairs whole
  const rest = text.slice(cut);
  const lines = rest.split('\n').length - (rest.endsWith('\n') ? 1 : 0);
  const head = text.slice(0, cut);
  return `${head}${head.endsWith('\n') ? '' : '\n'}… output cut here: ${lines} more line${lines === 1 ? '' : 's'} ` +
    `(${rest.length} characters) not shown; the run's stdout holds all of it`;
}
