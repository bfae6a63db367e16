import { describe, expect, it } from 'vitest';
import { HttpProblem, STORAGE_FULL, toProblem } from './problem.ts';

describe('toProblem', () => {
  it('keeps the status and detail of an HttpProblem', () => {
    const { problem, headers } = toProblem(new HttpProblem(404, 'no chute named x', { headers: { 'x-a': '1' } }));
    expect(problem).toEqual({ type: 'about:blank', title: 'Not Found', status: 404, detail: 'no chute named x' });
    expect(headers).toEqual({ 'x-a': '1' });
  });

  it('keeps the status of an HttpProblem thrown by another bundle, whose class is a different copy', async () => {
    // A second copy of the module, as a separate bundle would have it (vite loads it again for the query).
    // @ts-expect-error TypeScript does not resolve a module specifier with a query.
    const other = (await import('./problem.ts?second-copy')) as typeof import('./problem.ts');
    expect(other.HttpProblem).not.toBe(HttpProblem);
    const { problem } = toProblem(new other.HttpProblem(504, 'hostapd did not answer within 5 s'));
    expect(problem.status).toBe(504);
    expect(problem.detail).toBe('hostapd did not answer within 5 s');
  });

  it('answers 500 without the message of any other error', () => {
    const { problem } = toProblem(new Error('ENOENT: /secret/path'));
    expect(problem.status).toBe(500);
    expect(JSON.stringify(problem)).not.toContain('/secret/path');
  });

  it('answers 507 naming a full storage, without the path, for a write that found no space left or over its quota', () => {
    for (const code of ['ENOSPC', 'EDQUOT']) {
      const { problem } = toProblem(Object.assign(new Error(`${code}: no space left on device, open '/var/lib/chutebox/.x.tmp'`), { code }));
      expect(problem).toEqual({ type: 'about:blank', title: 'Insufficient Storage', status: 507, detail: STORAGE_FULL });
      expect(JSON.stringify(problem)).not.toContain('/var/lib');
    }
  });
});
