// The one error type a run rejects with (besides TypeError / RangeError for
// bad options and a plain Error once the lab is closed).

/** A failed run: a Python exception, a cancel, a time-out or a crash. */
export class ShardlabError extends Error {
  constructor(type, message, { line = null, col = null, stdout = '', report = null } = {}) {
    super(line === null ? `${type}: ${message}` : `${type}: ${message} (line ${line}, col ${col})`);
    this.name = 'ShardlabError';
    this.type = type;
    this.reason = message;
    this.line = line;
    this.col = col;
    this.stdout = stdout;
    this.report = report;
  }
}
