'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { parseRecords } = require('../src/records');

test('maps rows onto header names', () => {
  assert.deepStrictEqual(parseRecords('id,name\n1,Ada\n2,Linus\n'), [
    { id: '1', name: 'Ada' },
    { id: '2', name: 'Linus' },
  ]);
});

test('rejects rows with the wrong number of fields', () => {
  assert.throws(() => parseRecords('id,name\n1\n'), /expected 2 fields/);
});
