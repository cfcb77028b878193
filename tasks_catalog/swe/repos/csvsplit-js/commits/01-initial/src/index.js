'use strict';

module.exports = { ...require('./split') };
