'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { join } = require('../src/join');

test('joins and normalises', () => {
  assert.strictEqual(join('/srv', 'www/', './index.html'), '/srv/www/index.html');
});

test('join of nothing is the current directory', () => {
  assert.strictEqual(join(), '.');
});

test('join keeps a leading parent segment', () => {
  assert.strictEqual(join('..', 'shared', 'lib.js'), '../shared/lib.js');
});
