'use strict';

/**
 * Greedy word wrap: returns the lines of `text` so that no line is longer than `width`
 * (a single word longer than `width` gets a line of its own). Runs of whitespace collapse.
 */
function wrap(text, width) {
  if (!Number.isInteger(width) || width < 1) {
    throw new RangeError(`width must be a positive integer, got ${width}`);
  }
  const words = text.split(/\s+/).filter(Boolean);
  const lines = [];
  let line = '';
  for (const word of words) {
    if (line === '') {
      line = word;
    } else if (line.length + 1 + word.length >= width) {
      lines.push(line);
      line = word;
    } else {
      line += ' ' + word;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

/**
 * Wraps `text` to `width` columns and prefixes every line with `indent` spaces; the indent
 * counts toward the width.
 */
function wrapIndented(text, width, indent) {
  const pad = ' '.repeat(indent);
  return wrap(text, width - indent).map((line) => pad + line);
}

module.exports = { wrap, wrapIndented };
