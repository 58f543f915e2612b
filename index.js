// Entry point for code that requires the package directly (the build copies this file to dist/).
// n8n does not use it: it loads the files listed under "n8n" in package.json.
'use strict';

module.exports = {
	credentials: {
		get MediaGatewayApi() {
			return require('./credentials/MediaGatewayApi.credentials').MediaGatewayApi;
		},
	},
	nodes: {
		get MediaGatewayImage() {
			return require('./nodes/MediaGatewayImage/MediaGatewayImage.node').MediaGatewayImage;
		},
		get MediaGatewayVideo() {
			return require('./nodes/MediaGatewayVideo/MediaGatewayVideo.node').MediaGatewayVideo;
		},
		get MediaGatewayStoryboard() {
			return require('./nodes/MediaGatewayStoryboard/MediaGatewayStoryboard.node')
				.MediaGatewayStoryboard;
		},
		get MediaGatewayCharacter() {
			return require('./nodes/MediaGatewayCharacter/MediaGatewayCharacter.node')
				.MediaGatewayCharacter;
		},
		get MediaGatewayTrigger() {
			return require('./nodes/MediaGatewayTrigger/MediaGatewayTrigger.node').MediaGatewayTrigger;
		},
	},
};
