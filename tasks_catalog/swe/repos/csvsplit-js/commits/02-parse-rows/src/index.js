'use strict';

module.exports = { ...require('./split'), ...require('./rows') };
