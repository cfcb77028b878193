'use strict';
const { normalize } = require('./normalize');

/** Joins path segments with `/` and normalises the result. */
function join(...segments) {
  const parts = segments.filter((s) => s !== '');
  return parts.length === 0 ? '.' : normalize(parts.join('/'));
}

module.exports = { join };
