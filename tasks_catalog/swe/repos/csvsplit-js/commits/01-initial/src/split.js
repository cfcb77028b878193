'use strict';

/**
 * Splits one CSV line into fields. Fields may be wrapped in double quotes, which lets them
 * contain the separator.
 */
function splitLine(line, separator = ',') {
  const fields = [];
  let field = '';
  let quoted = false;
  for (const char of line) {
    if (char === '"') {
      quoted = !quoted;
    } else if (char === separator && !quoted) {
      fields.push(field);
      field = '';
    } else {
      field += char;
    }
  }
  fields.push(field);
  return fields;
}

module.exports = { splitLine };
