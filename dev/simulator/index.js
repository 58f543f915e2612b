'use strict';
/** Entry point of the gateway simulator: `const { startSimulator } = require('./dev/simulator')`. */
const { startSimulator } = require('./server');
const { sendCallback, RETRY_DELAYS_MS, ANSWER_LIMIT_MS } = require('./callbacks');
const { pngFor, makePng, mp4Bytes, PNG_SIGNATURE } = require('./assets');

module.exports = {
	startSimulator,
	sendCallback,
	RETRY_DELAYS_MS,
	ANSWER_LIMIT_MS,
	pngFor,
	makePng,
	mp4Bytes,
	PNG_SIGNATURE,
};
