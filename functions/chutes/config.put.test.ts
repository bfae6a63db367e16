import { describe, expect, it } from 'vitest';
import { callFunctionRaw, type InputProblem, type RawAnswer } from '../../test/support/call-function.ts';
import type { ChangeAccepted } from './schemas.ts';
import { combine, pciRouter } from '../../test/support/info-devices.ts';
import { memoryDevice } from '../../test/support/memory-device.ts';
import { heldChanges, settledChange } from '../../test/support/emulated-changes.ts';
import type { Device } from '../core/device/index.ts';
import * as configUpdate from './config.put.ts';

/** The stored configuration of chute `hello`: a Wi-Fi access point with a passphrase, a RADIUS secret. */
const STORED = {
  environment: { GREETING: 'Hello', API_TOKEN: 'tok-123' },
  web: { port: 8000 },
  net: { wlan: { type: 'wifi', intfName: 'wlan0', ssid: 'hello', key: 'hunter2hunter2', options: { acct_server: '10.0.0.2', acct_secret: 's3cret' } } },
};

/** A router with two radios (the access points of the configurations need one) and the chute installed. */
const device = () => memoryDevice(combine(pciRouter, { chutes: { hello: { record: { name: 'hello' }, config: structuredClone(STORED) } } }));

/** PUT …/config as a transport hands it over: the raw text and its content type. */
function put<T = unknown>(target: Device, contentType: string, text: string, chute = 'hello'): Promise<RawAnswer<T>> {
  return callFunctionRaw<T>(configUpdate, target, { params: { chute }, body: { contentType, text } });
}

/** A service.yaml as a chute developer writes it: YAML 1.1 booleans, the seed's `lease`, an unknown field. */
const SERVICE_YAML = `# hello: a web page on its own access point
environment:
  GREETING: Hi
  DEBUG: yes
web:
  port: 8080
net:
  wlan:
    type: wifi
    intfName: wlan0
    ssid: hello-lab
    key: another-passphrase
    dhcp: { start: 100, limit: 50, lease: 2h }
x_vendor: kept
`;

describe('PUT /api/v1/chutes/:chute/config', () => {
  it('responds with 200 and the change_id of an update-config change carrying the YAML configuration as written', async () => {
    const target = device();
    const out = await put(target, 'application/yaml', SERVICE_YAML);
    expect(out).toMatchObject({ status: 200, body: { change_id: 1 } });
    expect(target.submitted).toEqual([
      {
        action: 'update-config',
        chute: 'hello',
        config: {
          environment: { GREETING: 'Hi', DEBUG: true },
          web: { port: 8080 },
          net: { wlan: { type: 'wifi', intfName: 'wlan0', ssid: 'hello-lab', key: 'another-passphrase', dhcp: { start: 100, limit: 50, lease: '2h' } } },
          x_vendor: 'kept',
        },
      },
    ]);
  });

  it('takes JSON and the other YAML media types alike', async () => {
    const target = device();
    const config = { web: { port: 9000 } };
    for (const type of ['application/json', 'application/json; charset=utf-8', 'application/x-yaml', 'text/yaml']) {
      const text = type.startsWith('application/json') ? JSON.stringify(config) : 'web:\n  port: 9000\n';
      expect((await put(target, type, text)).status, type).toBe(200);
    }
    expect(target.submitted.map((request) => request.action === 'update-config' && request.config)).toEqual([config, config, config, config]);
  });

  it('takes the [redacted] placeholders a GET answers where secrets are stored, and queues the change with them, not with the secrets', async () => {
    const target = device();
    const edited = structuredClone(STORED);
    edited.environment.API_TOKEN = '[redacted]';
    edited.net.wlan.key = '[redacted]';
    edited.net.wlan.options.acct_secret = '[redacted]';
    edited.net.wlan.ssid = 'renamed';
    expect((await put(target, 'application/json', JSON.stringify(edited))).status).toBe(200);
    expect(target.submitted).toEqual([{ action: 'update-config', chute: 'hello', config: edited }]);
  });

  it('responds with 422 listing every violation with its path in the body, a placeholder with no stored secret among them, and submits nothing', async () => {
    const target = device();
    const body = {
      web: { port: 70000 },
      environment: { API_TOKEN: '[redacted]', NEW_SECRET: '[redacted]' },
      net: { wlan: { type: 'wifi', intfName: 'wlan0', ssid: 'x'.repeat(33), key: 'short' }, mesh: { type: 'wifi', intfName: 'wlan1', key: '[redacted]' } },
    };
    const out = await put<InputProblem>(target, 'application/json', JSON.stringify(body));
    expect(out.status).toBe(422);
    expect(out.headers['content-type']).toBe('application/problem+json');
    const paths = (out.body.errors as { path: string }[]).map((error) => error.path).sort();
    expect(paths).toEqual(['body.environment.NEW_SECRET', 'body.net.mesh.key', 'body.net.wlan.key', 'body.net.wlan.ssid', 'body.web.port']);
    expect(out.body.errors).toContainEqual({ path: 'body.net.mesh.key', message: expect.stringContaining('[redacted], the placeholder of a secret') });
    expect(out.body.detail).toMatch(/^the chute configuration is not valid: .* \(and 4 more\)$/);
    expect(target.submitted).toEqual([]);
  });

  it('responds with 422 naming body.net.<name>.mode for a new monitor interface where a lab link stands in for the radios, and submits nothing', async () => {
    const target = memoryDevice(
      combine(pciRouter, { settings: { lab_link: 'lab0' }, chutes: { hello: { record: { name: 'hello' }, config: structuredClone(STORED) } } }),
    );
    const config = { ...STORED, net: { ...STORED.net, mon: { type: 'wifi', mode: 'monitor', intfName: 'mon0' } } };
    const out = await callFunctionRaw(configUpdate, target, {
      params: { chute: 'hello' },
      body: { contentType: 'application/json', text: JSON.stringify(config) },
      refusedByDevice: true,
    });
    expect(out).toMatchObject({
      status: 422,
      body: { errors: [{ path: 'body.net.mon.mode', message: expect.stringContaining('a lab link (--lab-link) stands in') }] },
    });
    expect(target.submitted).toEqual([]);
  });

  it('responds with 422 in YAML too, with the same paths', async () => {
    const target = device();
    const out = await put<InputProblem>(target, 'text/yaml', 'web:\n  port: 0\nnet:\n  wlan:\n    type: wifi\n    intfName: Wlan0\n');
    expect(out.status).toBe(422);
    expect((out.body.errors as { path: string }[]).map((error) => error.path).sort()).toEqual(['body.net.wlan.intfName', 'body.web.port']);
    expect(target.submitted).toEqual([]);
  });

  it('responds with 400, 415 or 422 for a body that is not a configuration document, and submits nothing', async () => {
    const target = device();
    expect((await put(target, 'application/json', '{"web": ')).status).toBe(400);
    expect((await put(target, 'application/yaml', 'web: [1\n')).status).toBe(400);
    expect((await put(target, 'text/plain', 'web: {}')).status).toBe(415);
    expect((await put(target, 'application/json', '')).status).toBe(422);
    expect((await put(target, 'application/json', '[1, 2]')).status).toBe(422);
    expect(target.submitted).toEqual([]);
  });

  it('responds with 404 for a chute that is not installed and 400 naming params.chute for a bad name, before reading the body', async () => {
    const target = device();
    expect((await put(target, 'text/plain', 'x', 'nosuch')).status).toBe(404);
    const bad = await put(target, 'application/json', '{}', '../hello');
    expect(bad).toMatchObject({ status: 400, body: { errors: [{ path: 'params.chute' }] } });
    expect(target.submitted).toEqual([]);
  });
});

describe('PUT /api/v1/chutes/:chute/config with [redacted] while an earlier change to the chute is still to run', () => {
  /** PUT A sets a new Wi-Fi key; PUT B, a GET/edit/PUT round trip made before A ran, renames the network and keeps the key with a placeholder. */
  const A = () => ({ ...structuredClone(STORED), net: { wlan: { ...STORED.net.wlan, key: 'second-key-K2' } } });
  const B = () => ({
    ...structuredClone(STORED),
    net: { wlan: { ...STORED.net.wlan, ssid: 'renamed', key: '[redacted]', options: { acct_server: '10.0.0.2', acct_secret: '[redacted]' } } },
  });

  it('keeps the key in effect when B runs: the one A set', async () => {
    const { device: target, release } = heldChanges(device());
    const a = (await put<ChangeAccepted>(target, 'application/json', JSON.stringify(A()))).body.change_id;
    const b = await put<ChangeAccepted>(target, 'application/json', JSON.stringify(B()));
    expect(b.status).toBe(200);
    expect((await target.change(a))!.state).not.toMatch(/succeeded|failed/);
    release();
    expect((await settledChange(target, a)).state).toBe('succeeded');
    expect((await settledChange(target, b.body.change_id)).state).toBe('succeeded');
    expect((await target.chute('hello'))!.config.net).toEqual({ wlan: { ...STORED.net.wlan, ssid: 'renamed', key: 'second-key-K2' } });
  });

  it('fails B naming the path when A removed the network behind its placeholder, and changes nothing of the configuration', async () => {
    const { device: target, release } = heldChanges(device());
    const withoutWifi = { environment: STORED.environment, web: STORED.web };
    const a = (await put<ChangeAccepted>(target, 'application/json', JSON.stringify(withoutWifi))).body.change_id;
    const b = (await put<ChangeAccepted>(target, 'application/json', JSON.stringify(B()))).body.change_id;
    release();
    expect((await settledChange(target, a)).state).toBe('succeeded');
    const failed = await settledChange(target, b);
    expect(failed.state).toBe('failed');
    expect(failed.messages.at(-1)!.text).toBe(
      'failed: net.wlan.key, net.wlan.options.acct_secret are [redacted], placeholders of secrets, but the configuration of chute hello in effect now has no secret there to keep (a change since the PUT removed it): nothing was applied',
    );
    expect((await target.chute('hello'))!.config).toEqual(withoutWifi);
  });
});
