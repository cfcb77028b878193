'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { wrap } = require('../src/wrap');

test('wraps a sentence at the width', () => {
  assert.deepStrictEqual(wrap('the quick brown fox jumps', 10), ['the quick', 'brown fox', 'jumps']);
});

test('collapses runs of whitespace', () => {
  assert.deepStrictEqual(wrap('a   b\n\tc', 80), ['a b c']);
});

test('puts an over-long word on its own line', () => {
  assert.deepStrictEqual(wrap('a supercalifragilistic b', 5), ['a', 'supercalifragilistic', 'b']);
});

test('rejects a width below one', () => {
  assert.throws(() => wrap('x', 0), RangeError);
});
