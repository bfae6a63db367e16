import { describe, expect, it } from 'vitest';
import { finalChange } from './support/http-client.ts';
import { tarArchive } from './support/tar.ts';
import { useChutebox } from './support/spawn.ts';

/**
 * `chutebox emulate` installs, stops, starts and deletes a chute of two services and a light chute as
 * serve does (test/chute-services.test.ts), with answers of the same shapes: the chute's state from
 * its services', `services` and `owner` in its record.
 */
const start = useChutebox();

const PAIR = [
  'name: pair',
  'owner: alice',
  'services:',
  '  web: { source: web, command: httpd -f }',
  '  db: { type: image, image: busybox:1, environment: { ROLE: db } }',
  'web: { service: web, port: 80 }',
  '',
].join('\n');

describe('multi-service and light chutes on chutebox emulate', () => {
  it('installs a chute of two services: both running, each with a container, the images named as a device builds them', async () => {
    const server = await start(['emulate', '--port', '0', '--no-auth', '--change-delay', '5']);
    const send = async (method: string, endpoint: string, body?: Uint8Array) => {
      const headers = body === undefined ? undefined : { 'content-type': 'application/x-tar' };
      const res = await fetch(`${server.url}/api/v1${endpoint}`, { method, headers, body });
      expect(res.status).toBe(200);
      const change = await finalChange(server.url, ((await res.json()) as { change_id: number }).change_id);
      expect(change.state, JSON.stringify(change.messages)).toBe('succeeded');
      return change.messages.map((message) => message.text);
    };
    const chute = async (name: string) => (await fetch(`${server.url}/api/v1/chutes/${name}`)).json();

    const texts = await send('POST', '/chutes/', tarArchive({ 'paradrop.yaml': PAIR, 'web/Dockerfile': 'FROM busybox\n' }));
    expect(texts).toContainEqual(expect.stringMatching(/^built image chute-pair:\d+ from the uploaded source/));
    expect(texts).toContainEqual(expect.stringMatching(/^started container [0-9a-f]{12} of service db from image busybox:1$/));
    expect(await chute('pair')).toMatchObject({ state: 'running', owner: 'alice', services: { web: { state: 'running' }, db: { state: 'running' } } });

    await send('POST', '/chutes/pair/stop');
    expect(await chute('pair')).toMatchObject({ state: 'stopped', services: { web: { state: 'stopped' }, db: { state: 'stopped' } } });
    await send('POST', '/chutes/pair/start');
    expect(await chute('pair')).toMatchObject({ state: 'running', services: { web: { state: 'running' }, db: { state: 'running' } } });

    const light = 'name: feather\ntype: light\nuse: node\ncommand: [node, index.js]\n';
    await send('POST', '/chutes/', tarArchive({ 'paradrop.yaml': light, 'index.js': '\n' }));
    expect(await chute('feather')).toMatchObject({ state: 'running', owner: null, services: { main: { state: 'running' } } });

    await send('DELETE', '/chutes/pair');
    expect((await fetch(`${server.url}/api/v1/chutes/pair`)).status).toBe(404);
  });
});
