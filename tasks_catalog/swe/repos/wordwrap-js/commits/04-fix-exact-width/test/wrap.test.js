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

test('keeps words that exactly fill the width on one line', () => {
  assert.deepStrictEqual(wrap('aaa bbb', 7), ['aaa bbb']);
  assert.deepStrictEqual(wrap('ab cd ef gh', 5), ['ab cd', 'ef gh']);
});

test('uses the full width for every line', () => {
  const text = 'lorem ipsum dolor sit amet consectetur';
  for (const line of wrap(text, 11)) {
    assert.ok(line.length <= 11, `line too long: ${line}`);
  }
  assert.deepStrictEqual(wrap(text, 11), ['lorem ipsum', 'dolor sit', 'amet', 'consectetur']);
});
