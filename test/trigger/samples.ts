/** Callback bodies built from the callback payload field tables (docs/gateway-interface.md, Callbacks). */
export const imageSuccess = () => ({
	id: 'img-task-1',
	action: 'IMAGINE',
	status: 'SUCCESS',
	prompt: 'a red fox in the snow',
	imageUrl: 'https://cdn.example.com/img-task-1.png',
	progress: '100%',
	failReason: '',
	submitTime: 1_700_000_000_000,
	startTime: 1_700_000_001_500,
	finishTime: 1_700_000_060_250,
});

export const imageInProgress = () => ({
	...imageSuccess(),
	status: 'IN_PROGRESS',
	imageUrl: '',
	progress: '45%',
	finishTime: 0,
});

export const imageFailure = () => ({
	...imageSuccess(),
	status: 'FAILURE',
	imageUrl: '',
	progress: '80%',
	failReason: 'content policy violation',
});

export const videoSuccess = () => ({
	id: 'vid-task-1',
	status: 'succeed',
	type: 'video',
	output: {
		video_url: 'https://cdn.example.com/vid-task-1.mp4',
		cover_url: 'https://cdn.example.com/vid-task-1.png',
		duration: 8.5,
	},
	created_at: 1_700_000_000,
	updated_at: 1_700_000_150,
});

export const videoProcessing = () => ({
	id: 'vid-task-1',
	status: 'processing',
	type: 'video',
	output: { video_url: '', cover_url: '', duration: 0 },
	created_at: 1_700_000_000,
	updated_at: 1_700_000_001,
});

export const musicComplete = () => ({
	id: 'mus-task-1',
	status: 'complete',
	output: {
		audio_url: 'https://cdn.example.com/mus-task-1.mp3',
		title: 'Northern Lights',
		duration: 184,
	},
});
