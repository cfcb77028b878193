'use strict';

/**
 * Normalises a POSIX path: collapses repeated slashes, resolves `.` and `..` segments and
 * keeps a trailing slash. Leading `..` segments of relative paths are kept. Works on strings only; never touches the file system.
 */
function normalize(path) {
  if (path === '') return '.';
  const absolute = path.startsWith('/');
  const trailing = path.endsWith('/');
  const stack = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      // A relative path may climb above its start ("../x"); an absolute one stops at "/".
      if (stack.length > 0 && stack[stack.length - 1] !== '..') {
        stack.pop();
      } else if (!absolute) {
        stack.push('..');
      }
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
