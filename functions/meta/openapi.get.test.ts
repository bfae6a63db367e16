import { describe, expect, it } from 'vitest';
import { callFunction } from '../../test/support/call-function.ts';
import { memoryDevice } from '../../test/support/memory-device.ts';
import * as openapi from './openapi.get.ts';
import type { Problem } from '../core/problem.ts';

// What the bundle answers, the document the build put into it, is checked on `chutebox emulate` (test/openapi.test.ts).
describe('GET /api/v1/openapi.json', () => {
  it('answers 404 from source, where no build gave it a document', async () => {
    const { status, body } = await callFunction<Problem>(openapi, memoryDevice());
    expect(status).toBe(404);
    expect(body.detail).toContain('no OpenAPI document');
  });
});
