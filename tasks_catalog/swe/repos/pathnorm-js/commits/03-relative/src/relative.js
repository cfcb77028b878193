'use strict';
const { normalize } = require('./normalize');

/** The path from directory `from` to `to`; both absolute. */
function relative(from, to) {
  const a = normalize(from).split('/').filter(Boolean);
  const b = normalize(to).split('/').filter(Boolean);
  let common = 0;
  while (common < a.length && common < b.length && a[common] === b[common]) common += 1;
  const up = a.slice(common).map(() => '..');
  const rest = up.concat(b.slice(common)).join('/');
  return rest === '' ? '.' : rest;
}

module.exports = { relative };
