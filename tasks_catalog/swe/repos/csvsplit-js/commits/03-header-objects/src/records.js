'use strict';
const { parseRows } = require('./rows');

/** Parses CSV text whose first row is a header into one object per data row. */
function parseRecords(text, separator = ',') {
  const [header, ...rows] = parseRows(text, separator);
  if (!header) return [];
  return rows.map((row) => {
    if (row.length !== header.length) {
      throw new Error(`expected ${header.length} fields, got ${row.length}: ${row.join(separator)}`);
    }
    return Object.fromEntries(header.map((name, index) => [name, row[index]]));
  });
}

module.exports = { parseRecords };
