import { describe, expect, it } from 'vitest';
import { deviceAddress } from './device-address.ts';

describe("a fleet request's device", () => {
  it('is named by the path, its id decoded, with the path below it', () => {
    expect(deviceAddress('/devices/router-7/api/v1/chutes', 'fleet.test', undefined)).toEqual({ id: 'router-7', path: '/api/v1/chutes', prefixed: true });
    expect(deviceAddress('/devices/router%2D7', null, undefined)).toEqual({ id: 'router-7', path: '/', prefixed: true });
    expect(deviceAddress('/api/v1/chutes', 'router-7.fleet.test', undefined)).toBeNull();
  });

  it('is named by the host within the domain, whatever its case and port, the path as it is', () => {
    expect(deviceAddress('/api/v1/chutes', 'Router-7.Fleet.Test:8443', 'fleet.test')).toEqual({ id: 'router-7', path: '/api/v1/chutes', prefixed: false });
    expect(deviceAddress('/devices/router-1/api/v1/chutes', 'other.test', 'fleet.test')?.id).toBe('router-1');
  });

  it('is an id as sent when its escape is malformed, which names no device rather than failing', () => {
    expect(deviceAddress('/devices/router-%E0%A4%A/api/v1/chutes', null, undefined)).toEqual({ id: 'router-%E0%A4%A', path: '/api/v1/chutes', prefixed: true });
  });
});
