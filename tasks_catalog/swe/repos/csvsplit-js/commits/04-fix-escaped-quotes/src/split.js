'use strict';

/**
 * Splits one CSV line into fields. Fields may be wrapped in double quotes, which lets them
 * contain the separator; inside quotes a doubled quote ("") stands for one quote (RFC 4180).
 */
function splitLine(line, separator = ',') {
  const fields = [];
  let field = '';
  let quoted = false;
  for (let index = 0; index < line.length; index += 1) {
    const char = line[index];
    if (char === '"' && quoted && line[index + 1] === '"') {
      field += '"';
      index += 1;
    } else if (char === '"') {
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
