// A program's `result` (JSON: arrays as nested lists) as text, the way the
// playground and a Run's `resultText` show it.

// Lists of numbers are kept on one line; other lists and objects get a line
// per entry, indented.
export function resultText(value, indent = '') {
  if (!Array.isArray(value) && (value === null || typeof value !== 'object')) {
    if (typeof value === 'number' && !Number.isInteger(value)) return String(Number(value.toPrecision(7)));
    return value === null ? 'None' : JSON.stringify(value);
  }
  const inner = indent + '  ';
  if (Array.isArray(value)) {
    if (value.every((v) => v === null || typeof v !== 'object')) {
      return '[' + value.map((v) => resultText(v)).join(', ') + ']';
    }
    return '[\n' + value.map((v) => inner + resultText(v, inner)).join(',\n') + '\n' + indent + ']';
  }
  const entries = Object.entries(value).map(([k, v]) => `${inner}${JSON.stringify(k)}: ${resultText(v, inner)}`);
  return '{\n' + entries.join(',\n') + '\n' + indent + '}';
}
