import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { callFunction, callFunctionRaw } from '../../test/support/call-function.ts';
import { chuteDevice } from '../../test/support/chute-devices.ts';
import { memoryDevice } from '../../test/support/memory-device.ts';
import * as configRead from './config.get.ts';

/** A configuration as a developer wrote it: the seed's `lease` spelling and fields chutebox does not know. */
const CONFIG = {
  environment: { GREETING: 'Hello' },
  web: { port: 8000 },
  net: { wifi: { type: 'wifi', intfName: 'wlan0', ssid: 'café', key: 'chutebox-demo', dhcp: { start: 100, limit: 50, lease: '12h' } } },
  x_vendor: { notes: ['kept', 1] },
};

/** What a GET answers: the same, with the Wi-Fi passphrase hidden. */
const ANSWERED = { ...CONFIG, net: { wifi: { ...CONFIG.net.wifi, key: '[redacted]' } } };

const device = () => memoryDevice({ chutes: { hello: { record: { name: 'hello' }, config: CONFIG } } });

/** GET …/config with the given Accept header. */
function get(accept?: string, params = { chute: 'hello' }) {
  return callFunctionRaw(configRead, device(), { params, headers: accept === undefined ? {} : { accept } });
}

describe('GET /api/v1/chutes/:chute/config', () => {
  it('responds with 200 and the configuration as stored, unknown fields kept, in JSON by default', async () => {
    const { status, body } = await callFunction(configRead, device(), { chute: 'hello' });
    expect(status).toBe(200);
    expect(body).toEqual(ANSWERED);
    const out = await get();
    expect(out.headers).toEqual({ 'content-type': 'application/json', vary: 'accept' });
  });

  it('responds in YAML, under the type asked for, when Accept asks for YAML', async () => {
    for (const [accept, type] of [
      ['application/yaml', 'application/yaml'],
      ['application/x-yaml', 'application/x-yaml'],
      ['text/yaml', 'text/yaml; charset=utf-8'],
    ]) {
      const out = await get(accept);
      expect(out.status).toBe(200);
      expect(out.headers).toEqual({ 'content-type': type, vary: 'accept' });
      expect(out.body).toEqual(ANSWERED);
      expect(parse(out.text)).toEqual(ANSWERED);
      expect(out.text).toContain('\nweb:\n  port: 8000\n');
    }
  });

  it('never shows a secret: the Wi-Fi key, a RADIUS secret and secret-looking environment variables read [redacted]', async () => {
    const secrets = {
      environment: { API_TOKEN: 'abc123', TZ: 'UTC' },
      net: { wifi: { type: 'wifi', intfName: 'wlan0', key: 'hunter2hunter2', options: { acct_server: '10.0.0.2', acct_secret: 's3cret' } } },
    };
    const out = await callFunctionRaw(configRead, memoryDevice({ chutes: { hello: { config: secrets } } }), { params: { chute: 'hello' } });
    expect(out.body).toEqual({
      environment: { API_TOKEN: '[redacted]', TZ: 'UTC' },
      net: { wifi: { type: 'wifi', intfName: 'wlan0', key: '[redacted]', options: { acct_server: '10.0.0.2', acct_secret: '[redacted]' } } },
    });
    expect(out.text).not.toMatch(/hunter2|s3cret|abc123/);
  });

  it("writes YAML that a YAML 1.1 reader (PyYAML, ParaDrop's) reads back unchanged: `yes` and `0755` stay strings", async () => {
    const tricky = { net: { wifi: { type: 'wifi', intfName: 'wlan0', ssid: 'yes', dns: ['0755'] } }, environment: { DEBUG: 'off' } };
    const out = await callFunctionRaw(configRead, memoryDevice({ chutes: { hello: { config: tricky } } }), {
      params: { chute: 'hello' },
      headers: { accept: 'application/yaml' },
    });
    expect(parse(out.text, { version: '1.1' })).toEqual(tricky);
  });

  it('respects q-values: JSON when the client prefers it to YAML', async () => {
    expect((await get('application/yaml;q=0.5, application/json')).headers['content-type']).toBe('application/json');
    expect((await get('application/json;q=0.5, application/yaml')).headers['content-type']).toBe('application/yaml');
    expect((await get('*/*')).headers['content-type']).toBe('application/json');
    expect((await get('text/html')).headers['content-type']).toBe('application/json');
  });

  it('responds with 200 and {} for a chute without a configuration', async () => {
    expect(await callFunction(configRead, chuteDevice(), { chute: 'bare' })).toEqual({ status: 200, body: {} });
  });

  it('responds with 404 for an unknown chute, and 400 naming params.chute for a bad name, as problem documents', async () => {
    const missing = await get('application/yaml', { chute: 'nope' });
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toBe('application/problem+json');
    const bad = await callFunction(configRead, device(), { chute: '../etc' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ errors: [{ path: 'params.chute' }] });
  });
});
