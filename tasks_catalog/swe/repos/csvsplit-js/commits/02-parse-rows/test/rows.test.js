'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { parseRows } = require('../src/rows');

test('parses rows with CRLF and blank lines', () => {
  assert.deepStrictEqual(parseRows('a,b\r\n\r\nc,d\n'), [['a', 'b'], ['c', 'd']]);
});
