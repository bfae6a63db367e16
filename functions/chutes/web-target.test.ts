import { describe, expect, it } from 'vitest';
import { memoryDevice } from '../../test/support/memory-device.ts';
import { chuteWebTarget } from './web-target.ts';

const running = (chute: string, networks: Record<string, unknown> = {}) => ({
  Id: `${chute}-id`,
  State: 'running',
  Labels: { 'io.chutebox.chute': chute },
  NetworkSettings: { Networks: networks },
});

describe('chuteWebTarget: where the proxy sends /chutes/<chute>/', () => {
  it("answers the container's address on the engine's network and web.port", async () => {
    const device = memoryDevice({
      chutes: { site: { config: { web: { port: 8000 } } } },
      containers: [running('site', { bridge: { IPAddress: '172.17.0.3' } })],
    });
    expect(await chuteWebTarget(device, 'site')).toEqual({ host: '172.17.0.3', port: 8000 });
  });

  it("answers the address of the chute's own container (its web.service), not another service's sharing its network", async () => {
    const other = { Id: 'db-id', State: 'running', Labels: { 'io.chutebox.chute': 'site', 'io.chutebox.service': 'db' }, NetworkSettings: { Networks: {} } };
    const device = memoryDevice({
      chutes: { site: { config: { web: { service: 'web', port: 8000 } } } },
      containers: [other, running('site', { bridge: { IPAddress: '172.17.0.3' } })],
    });
    expect(await chuteWebTarget(device, 'site')).toEqual({ host: '172.17.0.3', port: 8000 });
  });

  it("answers the chute's address on its first network when the container has no engine network", async () => {
    const cache = { networks: { wifi: { hostInterface: 'vwlan0001', ipv4Network: '10.128.0.0/24', gateway: '10.128.0.1', chuteAddress: '10.128.0.2' } } };
    const device = memoryDevice({ chutes: { site: { config: { web: { port: 80 } }, cache } }, containers: [running('site', { none: { IPAddress: '' } })] });
    expect(await chuteWebTarget(device, 'site')).toEqual({ host: '10.128.0.2', port: 80 });
  });

  it('refuses a chute that is not installed or has no web.port (404), and one that does not run or has no address (503)', async () => {
    const device = memoryDevice({
      chutes: { plain: { config: {} }, idle: { config: { web: { port: 80 } } }, hidden: { config: { web: { port: 80 } } } },
      containers: [{ ...running('idle'), State: 'exited' }, running('hidden')],
    });
    await expect(chuteWebTarget(device, 'nope')).rejects.toMatchObject({ status: 404 });
    await expect(chuteWebTarget(device, 'plain')).rejects.toMatchObject({
      status: 404,
      message: 'chute plain serves no web page: its configuration has no web.port',
    });
    await expect(chuteWebTarget(device, 'idle')).rejects.toMatchObject({
      status: 503,
      message: 'chute idle is not running: its web page at port 80 cannot be reached',
    });
    await expect(chuteWebTarget(device, 'hidden')).rejects.toMatchObject({ status: 503 });
  });
});
