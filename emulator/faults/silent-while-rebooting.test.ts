import { describe, expect, it, vi } from 'vitest';
import { silentWhileRebooting } from './silent-while-rebooting.ts';

describe('silentWhileRebooting', () => {
  const served = vi.fn(async () => new Response('answered'));

  it('answers through the app while the device is up', async () => {
    const fetch = silentWhileRebooting(served, () => false);
    expect(await (await fetch(new Request('http://router.test/api/v1/chutes'))).text()).toBe('answered');
  });

  it('closes the connection unanswered while rebooting, and is a network error without one (msw)', async () => {
    const fetch = silentWhileRebooting(served, () => true);
    const socket = { destroy: vi.fn() };
    served.mockClear();
    await fetch(new Request('http://router.test/api/v1/chutes'), { incoming: { socket } });
    expect(socket.destroy).toHaveBeenCalledOnce();
    expect((await fetch(new Request('http://router.test/api/v1/info/hardware'))).type).toBe('error');
    expect(served).not.toHaveBeenCalled();
  });

  it("answers the emulator's own API while rebooting, to set the clock or end the fault", async () => {
    const fetch = silentWhileRebooting(served, () => true);
    expect(await (await fetch(new Request('http://router.test/_chutebox/state'))).text()).toBe('answered');
  });
});
