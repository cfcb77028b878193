'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { splitLine } = require('../src/split');

test('splits plain fields', () => {
  assert.deepStrictEqual(splitLine('a,b,c'), ['a', 'b', 'c']);
});

test('keeps empty fields', () => {
  assert.deepStrictEqual(splitLine('a,,c,'), ['a', '', 'c', '']);
});

test('quoted fields may contain the separator', () => {
  assert.deepStrictEqual(splitLine('1,"Smith, Jane",3'), ['1', 'Smith, Jane', '3']);
});

test('custom separator', () => {
  assert.deepStrictEqual(splitLine('a;b', ';'), ['a', 'b']);
});

test('doubled quotes inside a quoted field are one quote', () => {
  assert.deepStrictEqual(splitLine('1,"say ""hi""",3'), ['1', 'say "hi"', '3']);
});

test('a field that is only an escaped quote', () => {
  assert.deepStrictEqual(splitLine('"""",x'), ['"', 'x']);
});

test('empty quoted field stays empty', () => {
  assert.deepStrictEqual(splitLine('"",x'), ['', 'x']);
});
