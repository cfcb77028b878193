'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { relative } = require('../src/relative');

test('relative path to a sibling directory', () => {
  assert.strictEqual(relative('/srv/www/app', '/srv/www/static/css'), '../static/css');
});

test('relative path to the same directory', () => {
  assert.strictEqual(relative('/a/b', '/a/b/'), '.');
});
