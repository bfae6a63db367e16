import { describe, expect, it } from 'vitest';
import { pathSubjects, requestTest } from './match.ts';

describe('what a request path names', () => {
  it('finds the chute, network and station of the API’s paths and ParaDrop’s websockets', () => {
    expect(pathSubjects('/api/v1/chutes/hotspot/networks/guest/stations/C8:5E:A9:3D:71:0B')).toEqual({
      chute: 'hotspot',
      network: 'guest',
      station: 'c8:5e:a9:3d:71:0b',
    });
    expect(pathSubjects('/api/v1/chutes/hotspot/networks/guest/hostapd_control/ws')).toEqual({ chute: 'hotspot', network: 'guest' });
    expect(pathSubjects('/ws/chute_logs/hello-world')).toEqual({ chute: 'hello-world' });
    expect(pathSubjects('/sockjs/logs/hello-world/123/abc/websocket')).toEqual({ chute: 'hello-world' });
    expect(pathSubjects('/api/v1/chutes')).toEqual({});
    expect(pathSubjects('/api/v1/config/networks/x')).toEqual({});
  });
});

describe('a path pattern', () => {
  const matches = (pattern: string, path: string) => requestTest({ path: pattern })({ method: 'GET', path });

  it('takes * for one segment, a last ** for any rest, a trailing slash as none, and segments decoded', () => {
    expect(matches('/api/v1/chutes/*', '/api/v1/chutes/hotspot/')).toBe(true);
    expect(matches('/api/v1/chutes/*', '/api/v1/chutes')).toBe(false);
    expect(matches('/api/v1/chutes/*', '/api/v1/chutes/hotspot/config')).toBe(false);
    expect(matches('/api/v1/**', '/api/v1')).toBe(true);
    expect(matches('/api/v1/**', '/api/v1/chutes/hotspot/config')).toBe(true);
    expect(matches('/api/v1/**', '/ws/changes/1/stream')).toBe(false);
    expect(matches('/api/v1/chutes/a b', '/api/v1/chutes/a%20b')).toBe(true);
  });
});
