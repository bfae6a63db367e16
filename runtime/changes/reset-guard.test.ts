import { describe, expect, it } from 'vitest';
import { resetGuard } from './reset-guard.ts';

describe('resetGuard', () => {
  it('refuses with 409 while a reset runs, a second reset included, and nothing before or after', async () => {
    const guard = resetGuard();
    expect(() => guard.refuse()).not.toThrow();
    let finish!: () => void;
    const reset = guard.run(() => new Promise<string>((resolve) => (finish = () => resolve('done'))));
    expect(() => guard.refuse()).toThrow(expect.objectContaining({ status: 409 }));
    await expect(guard.run(async () => 'second')).rejects.toMatchObject({ status: 409 });
    finish();
    await expect(reset).resolves.toBe('done');
    expect(() => guard.refuse()).not.toThrow();
  });

  it('is free again after a reset that failed', async () => {
    const guard = resetGuard();
    await expect(guard.run(async () => Promise.reject(new Error('engine gone')))).rejects.toThrow('engine gone');
    await expect(guard.run(async () => 'again')).resolves.toBe('again');
  });
});
