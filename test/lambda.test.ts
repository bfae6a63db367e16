import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpApiEvent, lambdaBundle as bundle, type LambdaHandler } from './support/lambda.ts';
import { dockerSaveArchive } from './support/tar.ts';

/*
 * The function bundles as AWS Lambda runs them: `handler(event)` of dist/functions/<name>.mjs, with its
 * device loaded at run time from dist/scenario-device.mjs, serving the scenario of CHUTEBOX_SCENARIO.
 */

let savedScenario: string | undefined;
let hardware: LambdaHandler;
let software: LambdaHandler;

beforeAll(async () => {
  savedScenario = process.env.CHUTEBOX_SCENARIO;
  process.env.CHUTEBOX_SCENARIO = 'default';
  hardware = await bundle('info-hardware-get');
  software = await bundle('info-software-get');
});

afterAll(() => {
  if (savedScenario === undefined) delete process.env.CHUTEBOX_SCENARIO;
  else process.env.CHUTEBOX_SCENARIO = savedScenario;
});

describe('Lambda handler of GET /api/v1/info/hardware', () => {
  it('responds with 200 and the hardware of the scenario named by CHUTEBOX_SCENARIO', async () => {
    const result = await hardware(httpApiEvent('GET', '/api/v1/info/hardware'));
    expect(result.statusCode).toBe(200);
    expect(result.headers).toMatchObject({ 'content-type': 'application/json' });
    expect(JSON.parse(result.body!)).toEqual({
      vendor: 'PC Engines',
      board: 'apu2 1.0',
      cpu: 'x86_64',
      memory: 3982516 * 1024,
      wifi: [
        { id: 'pci-wifi-0', slot: 'pci/0000:04:00.0', macAddr: '04:f0:21:34:5a:9e', vendorId: '0x168c', deviceId: '0x003c' },
        { id: 'pci-wifi-1', slot: 'pci/0000:05:00.0', macAddr: '04:f0:21:1c:27:b3', vendorId: '0x168c', deviceId: '0x0033' },
      ],
    });
  });

  it('responds with 200 under a named stage, whose name prefixes the path', async () => {
    const result = await hardware(httpApiEvent('GET', '/api/v1/info/hardware', 'prod'));
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body!).vendor).toBe('PC Engines');
  });

  it('responds with an ETag, and with 304 and no body to a request whose If-None-Match names it', async () => {
    const first = await hardware(httpApiEvent('GET', '/api/v1/info/hardware'));
    const etag = first.headers!.etag as string;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const event = httpApiEvent('GET', '/api/v1/info/hardware');
    event.headers['If-None-Match'] = `W/"other", ${etag}`;
    const again = await hardware(event);
    expect(again.statusCode).toBe(304);
    expect(again.headers).toEqual({ etag });
    expect(again.body).toBe('');
  });

  it("responds to HEAD with the GET's status and headers and no body", async () => {
    const get = await hardware(httpApiEvent('GET', '/api/v1/info/hardware'));
    const head = await hardware(httpApiEvent('HEAD', '/api/v1/info/hardware'));
    expect(head.statusCode).toBe(200);
    expect(head.headers).toEqual(get.headers);
    expect(head.body).toBe('');
  });

  it('responds to another method with 405 and Allow: GET', async () => {
    const result = await hardware(httpApiEvent('POST', '/api/v1/info/hardware'));
    expect(result.statusCode).toBe(405);
    expect(result.headers).toMatchObject({ allow: 'GET', 'content-type': 'application/problem+json' });
    expect(JSON.parse(result.body!)).toMatchObject({ status: 405, title: 'Method Not Allowed' });
  });

  it('responds to another path with a 404 problem', async () => {
    const result = await hardware(httpApiEvent('GET', '/api/v1/info/hardwares'));
    expect(result.statusCode).toBe(404);
    expect(result.headers).toMatchObject({ 'content-type': 'application/problem+json' });
    expect(JSON.parse(result.body!)).toEqual({
      type: 'about:blank',
      title: 'Not Found',
      status: 404,
      detail: 'no resource at /api/v1/info/hardwares',
    });
  });
});

describe('Lambda handler of GET /api/v1/info/software', () => {
  it('responds with 200 and the OpenWrt release and kernel of the scenario', async () => {
    const result = await software(httpApiEvent('GET', '/api/v1/info/software'));
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body!)).toMatchObject({
      biosVendor: 'coreboot',
      osVersion: 'OpenWrt 23.05.5 r24106-10cc5fcd00',
      kernelVersion: 'Linux-5.15.167',
    });
    // The recorded uptime, grown by the seconds since the scenario was loaded (scenarioClock).
    expect(JSON.parse(result.body!).uptime).toBeGreaterThanOrEqual(183245);
  });
});

describe('Lambda handler of GET /api/v1/chutes/:chute/config', () => {
  it('responds in YAML, with its content type, when Accept asks for YAML; in JSON by default', async () => {
    const config = await bundle('chutes-config-get');
    const event = httpApiEvent('GET', '/api/v1/chutes/hello-world/config');
    const yaml = await config({ ...event, headers: { ...event.headers, accept: 'application/yaml' } });
    expect(yaml.statusCode).toBe(200);
    expect(yaml.headers).toMatchObject({ 'content-type': 'application/yaml', vary: 'accept' });
    expect(yaml.body).toMatch(/^net:\n {2}wifi:\n {4}type: wifi\n/m);
    const json = await config(event);
    expect(json.headers).toMatchObject({ 'content-type': 'application/json' });
    expect(JSON.parse(json.body!)).toMatchObject({ web: { port: 8000 }, net: { wifi: { ssid: 'hello-world' } } });
  });
});

describe('Lambda handler of GET /api/v1/config/new-config', () => {
  it("responds on its alias /api/v1/config/new_config too (ParaDrop's spelling), the same configuration, and 405 there for another method", async () => {
    const newConfig = await bundle('config-new-config-get');
    const dashed = await newConfig(httpApiEvent('GET', '/api/v1/config/new-config'));
    const underscored = await newConfig(httpApiEvent('GET', '/api/v1/config/new_config', 'prod'));
    expect([dashed.statusCode, underscored.statusCode]).toEqual([200, 200]);
    expect(JSON.parse(underscored.body!)).toEqual(JSON.parse(dashed.body!));
    expect((await newConfig(httpApiEvent('PUT', '/api/v1/config/new_config'))).statusCode).toBe(405);
  });
});

describe('Lambda handler of POST /api/v1/chutes/', () => {
  it('decodes a base64 application/x-tar body to its bytes: an image archive installs, bytes that are not a tar answer 422', async () => {
    const install = await bundle('chutes-chutes-post');
    const event = httpApiEvent('POST', '/api/v1/chutes/');
    const upload = (body: Uint8Array) =>
      install({
        ...event,
        queryStringParameters: { name: 'uploaded' },
        headers: { ...event.headers, 'content-type': 'application/x-tar' },
        body: Buffer.from(body).toString('base64'),
        isBase64Encoded: true,
      });
    const accepted = await upload(dockerSaveArchive(['uploaded/web:1']));
    expect(accepted.statusCode).toBe(200);
    expect(JSON.parse(accepted.body!)).toEqual({ change_id: expect.any(Number) });
    const refused = await upload(new TextEncoder().encode('not a tar'));
    expect(refused.statusCode).toBe(422);
    expect(JSON.parse(refused.body!).errors).toEqual([{ path: 'body', message: expect.stringMatching(/not a tar/) }]);
  });
});

describe('the device of a Lambda function instance', () => {
  const saved = process.env.CHUTEBOX_DEVICE_MODULE;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'chutebox-lambda-device-'));
    // A device module that counts how often it is asked for a device, then serves the stock scenario device.
    const stock = new URL('../dist/scenario-device.mjs', import.meta.url).href;
    await writeFile(
      path.join(dir, 'counting-device.mjs'),
      `import { createDevice as stock } from ${JSON.stringify(stock)};\n` +
        'export async function createDevice() { globalThis.chuteboxDeviceLoads = (globalThis.chuteboxDeviceLoads ?? 0) + 1; return stock(); }\n',
    );
    process.env.CHUTEBOX_DEVICE_MODULE = pathToFileURL(path.join(dir, 'counting-device.mjs')).href;
  });

  afterAll(async () => {
    if (saved === undefined) delete process.env.CHUTEBOX_DEVICE_MODULE;
    else process.env.CHUTEBOX_DEVICE_MODULE = saved;
    await rm(dir, { recursive: true, force: true });
  });

  it('is loaded once and kept, also across requests answered with an error', async () => {
    // A fresh instance of the bundle (the query makes Node load the module again), as a new Lambda instance.
    const handler = await bundle('info-hardware-get', 'device-kept');
    const loads = () => (globalThis as { chuteboxDeviceLoads?: number }).chuteboxDeviceLoads ?? 0;
    const before = loads();
    expect((await handler(httpApiEvent('GET', '/api/v1/info/hardware'))).statusCode).toBe(200);
    expect((await handler(httpApiEvent('GET', '/api/v1/info/elsewhere'))).statusCode).toBe(404);
    expect((await handler(httpApiEvent('POST', '/api/v1/info/hardware'))).statusCode).toBe(405);
    expect((await handler(httpApiEvent('GET', '/api/v1/info/hardware'))).statusCode).toBe(200);
    expect(loads() - before).toBe(1);
  });
});
