'use strict';

/**
 * Normalises a POSIX path: collapses repeated slashes, resolves `.` and `..` segments and
 * keeps a trailing slash. Works on strings only; never touches the file system.
 */
function normalize(path) {
  if (path === '') return '.';
  const absolute = path.startsWith('/');
  const trailing = path.endsWith('/');
  const stack = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      stack.pop();
    } else {
      stack.push(segment);
    }
  }
  let result = (absolute ? '/' : '') + stack.join('/');
  if (result === '') return '.';
  if (trailing && !result.endsWith('/')) result += '/';
  return result;
}

module.exports = { normalize };
