'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { normalize } = require('../src/normalize');

test('collapses repeated slashes', () => {
  assert.strictEqual(normalize('/a//b///c'), '/a/b/c');
});

test('resolves dot segments', () => {
  assert.strictEqual(normalize('/a/./b/../c'), '/a/c');
});

test('keeps a trailing slash', () => {
  assert.strictEqual(normalize('docs/guide/'), 'docs/guide/');
});

test('empty path is the current directory', () => {
  assert.strictEqual(normalize(''), '.');
  assert.strictEqual(normalize('a/..'), '.');
});

test('cannot climb above the root', () => {
  assert.strictEqual(normalize('/../../etc'), '/etc');
});

test('keeps leading parent segments of relative paths', () => {
  assert.strictEqual(normalize('../a'), '../a');
  assert.strictEqual(normalize('a/../../b'), '../b');
  assert.strictEqual(normalize('../../x/./y/..'), '../../x');
});

test('parent of the current directory', () => {
  assert.strictEqual(normalize('..'), '..');
  assert.strictEqual(normalize('./../'), '../');
});
