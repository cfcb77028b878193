'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { wrapIndented } = require('../src/wrap');

test('indents every wrapped line', () => {
  assert.deepStrictEqual(wrapIndented('one two three', 8, 2), ['  one', '  two', '  three']);
});

test('indent counts toward the width', () => {
  assert.deepStrictEqual(wrapIndented('ab cd ef', 7, 2), ['  ab cd', '  ef']);
});
