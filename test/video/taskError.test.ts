/**
 * A timed-out Wait for Callback batch fails with the GatewayTaskError parked as the stack entry's
 * resumeError. n8n-core rethrows a stored error unchanged only when it is named NodeOperationError or
 * NodeApiError; any other name is rethrown as a bare Error, and the advice in `description` (which
 * tasks to fetch later, and how) is lost. Found by the batch e2e test in a real n8n.
 */
import { WorkflowExecute } from 'n8n-core';
import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { GatewayTaskError } from '../../nodes/shared/execution/errors';

const node: INode = {
	id: 'video',
	name: 'Media Gateway Video',
	type: 'n8n-nodes-media-gateway.mediaGatewayVideo',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

describe('GatewayTaskError', () => {
	const error = new GatewayTaskError(node, '3 of 3 video tasks did not report a final state within 3 s', {
		description: 'Task ID a, b, c: fetch them later with "Get Task"',
		task: { taskIds: ['a', 'b', 'c'], timedOut: true },
	});

	it('is an n8n NodeOperationError by type and by name', () => {
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.name).toBe('NodeOperationError');
		expect(JSON.parse(JSON.stringify(error))).toMatchObject({ name: 'NodeOperationError' });
	});

	it("keeps its description when n8n-core rethrows it on resume", () => {
		const rethrow = (WorkflowExecute.prototype as unknown as { rethrowNodeError(e: Error): never })
			.rethrowNodeError;
		let thrown: unknown;
		try {
			rethrow.call(undefined, error);
		} catch (caught) {
			thrown = caught;
		}
		expect(thrown).toBe(error);
		expect((thrown as NodeOperationError).description).toBe('Task ID a, b, c: fetch them later with "Get Task"');
	});
});
