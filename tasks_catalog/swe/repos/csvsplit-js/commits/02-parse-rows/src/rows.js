'use strict';
const { splitLine } = require('./split');

/** Splits CSV text into rows of fields; blank lines are skipped, CRLF and LF both work. */
function parseRows(text, separator = ',') {
  return text
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '')
    .map((line) => splitLine(line, separator));
}

module.exports = { parseRows };
