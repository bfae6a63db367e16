import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chuteDevice, STATIONS } from '../../test/support/chute-devices.ts';
import { openWebSocket, opened, refused } from '../../test/support/websocket-client.ts';
import { fixedAuth } from '../auth/index.ts';
import { createApp } from './app.ts';
import { listen, type Listening } from './listen.ts';
import { rawRequest } from '../../test/support/raw-http.ts';
import { functionsFolder } from '../../test/support/test-bundles.ts';

/**
 * The upgrade path of the HTTP layer in this process: `createApp` + `listen` over an in-memory
 * device, with the built station and features bundles.
 */

let dir: string;
const servers: Listening[] = [];

beforeAll(async () => {
  dir = await functionsFolder([], ['info-features-get.mjs', 'networks-station-delete.mjs']);
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await rm(dir, { recursive: true, force: true });
});

async function serve(withAuth = false): Promise<Listening> {
  const app = await createApp({ functionsDir: dir, device: chuteDevice(), auth: withAuth ? await fixedAuth({ username: 'paradrop', password: '' }) : null });
  const server = await listen(app, { host: '127.0.0.1', port: 0 });
  servers.push(server);
  return server;
}

const WLAN = '/api/v1/chutes/hello/networks/wlan/hostapd_control/ws';

describe('GET …/hostapd_control/ws through createApp and listen', () => {
  it("opens on an access point: GET_CONFIG answers hostapd's reply; after ATTACH a station disconnected over HTTP comes as an event", async () => {
    const server = await serve();
    const ws = opened(await openWebSocket(`${server.url}${WLAN}`));
    ws.send('GET_CONFIG');
    expect(await ws.next()).toContain('bssid=24:05:0f:f7:30:9f\n');
    ws.send('ATTACH');
    expect(await ws.next()).toBe('OK\n');
    expect((await fetch(`${server.url}/api/v1/chutes/hello/networks/wlan/stations/${STATIONS[1]}`, { method: 'DELETE' })).status).toBe(200);
    expect(await ws.next()).toBe(`<3>AP-STA-DISCONNECTED ${STATIONS[1]}`);
    ws.close();
  });

  it('responds with 409 to an upgrade on a VLAN network and 404 on an unknown one, with problem+json', async () => {
    const server = await serve();
    expect(refused(await openWebSocket(`${server.url}/api/v1/chutes/hello/networks/guest/hostapd_control/ws`))).toMatchObject({
      status: 409,
      type: 'application/problem+json',
    });
    expect(refused(await openWebSocket(`${server.url}/api/v1/chutes/hello/networks/nope/hostapd_control/ws`))).toMatchObject({
      status: 404,
      type: 'application/problem+json',
    });
  });

  it('responds to a plain GET with 426, and to a POST with 405 allowing GET', async () => {
    const server = await serve();
    const get = await fetch(`${server.url}${WLAN}`);
    expect(get.status).toBe(426);
    expect(get.headers.get('upgrade')).toBe('websocket');
    const post = await fetch(`${server.url}${WLAN}`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
  });

  it('responds with 401 without credentials when the app has an auth policy, and opens with them', async () => {
    const server = await serve(true);
    expect(refused(await openWebSocket(`${server.url}${WLAN}`))).toMatchObject({ status: 401, type: 'application/problem+json' });
    const ws = opened(await openWebSocket(`${server.url}${WLAN}`, { authorization: `Basic ${Buffer.from('paradrop:').toString('base64')}` }));
    ws.close();
    await ws.closed;
  });

  it('answers an upgrade to another protocol (h2c) as an ordinary request, and closes the connection', async () => {
    const server = await serve();
    const answer = await rawRequest(
      server.url,
      'GET /api/v1/info/features HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n\r\n',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answer).toMatch(/\r\nconnection: close\r\n/);
    expect(answer.endsWith('\r\n\r\n["hostapd-control"]')).toBe(true);
  });

  it('answers 400 to an upgrade request that carries a body, which it cannot read', async () => {
    const server = await serve();
    const answer = await rawRequest(
      server.url,
      'POST /api/v1/chutes/hello/networks/wlan/stations HTTP/1.1\r\nHost: device\r\nConnection: Upgrade\r\nUpgrade: h2c\r\nContent-Length: 2\r\n\r\n{}',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toContain('application/problem+json');
  });

  it('closing the server closes its websockets with 1001, and waits for them', async () => {
    const app = await createApp({ functionsDir: dir, device: chuteDevice(), auth: null });
    const server = await listen(app, { host: '127.0.0.1', port: 0 });
    const ws = opened(await openWebSocket(`${server.url}${WLAN}`));
    ws.send('ATTACH');
    expect(await ws.next()).toBe('OK\n');
    await server.close();
    expect(await ws.closed).toEqual({ code: 1001, reason: 'the server is stopping' });
  });
});
