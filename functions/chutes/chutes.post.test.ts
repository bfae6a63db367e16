import { describe, expect, it } from 'vitest';
import { callFunctionRaw, type InputProblem, type RawAnswer } from '../../test/support/call-function.ts';
import { combine, lanBridge, pciRouter, vlanKernel } from '../../test/support/info-devices.ts';
import { memoryDevice } from '../../test/support/memory-device.ts';
import { dockerSaveArchive, tarArchive } from '../../test/support/tar.ts';
import { isImageReference } from './chute-body.ts';
import * as install from './chutes.post.ts';

/** A device with one chute installed, `hello`. */
/** A router with two radios (the access points of the configurations need one) and a chute installed. */
const device = () => memoryDevice(combine(pciRouter, { chutes: { hello: { record: { name: 'hello', image: 'hello-world:1' }, config: {} } } }));

/** POST /api/v1/chutes/ with a body of `contentType`. */
function post<T = unknown>(target: ReturnType<typeof device>, contentType: string, text: string): Promise<RawAnswer<T>> {
  return callFunctionRaw<T>(install, target, { body: { contentType, text } });
}

const postJson = <T = unknown>(target: ReturnType<typeof device>, body: unknown) => post<T>(target, 'application/json', JSON.stringify(body));

const CONFIG = {
  environment: { GREETING: 'hi', PORT: 8080 },
  web: { port: 8080 },
  net: { wlan: { type: 'wifi', intfName: 'wlan0', ssid: 'lab', key: 'a-passphrase', dhcp: { start: 4, limit: 20, lease: '2h' } } },
};

describe('POST /api/v1/chutes/', () => {
  it('responds with 200 and the change_id of an install change carrying every field as given', async () => {
    const target = device();
    const body = {
      name: 'web',
      image: 'registry.local:5000/team/web:1.2',
      version: '1.2',
      config: CONFIG,
      environment: { MODE: 'demo' },
      allocation: { cpu_shares: 512, prioritize_traffic: true, memory: '64m' },
    };
    const out = await postJson(target, body);
    expect(out).toMatchObject({ status: 200, body: { change_id: 1 } });
    expect(target.submitted).toEqual([
      {
        action: 'install',
        chute: 'web',
        image: body.image,
        version: '1.2',
        config: CONFIG,
        environment: { MODE: 'demo' },
        allocation: { cpu_shares: 512, prioritize_traffic: true, memory: '64m' },
      },
    ]);
    expect(await target.change(1)).toMatchObject({ id: 1, action: 'install', chute: 'web', state: 'queued' });
  });

  it('fills what the body leaves out: no version, an empty configuration, environment and allocation', async () => {
    const target = device();
    expect((await postJson(target, { name: 'bare', image: 'busybox' })).status).toBe(200);
    expect(target.submitted).toEqual([{ action: 'install', chute: 'bare', image: 'busybox', version: null, config: {}, environment: {}, allocation: {} }]);
  });

  it('takes a YAML body (a configuration as a developer writes it), and a numeric version as its text', async () => {
    const target = device();
    const yaml = [
      'name: hello-yaml',
      `image: hello@sha256:${'ab'.repeat(32)}`,
      'version: 2',
      'config:',
      '  environment:',
      '    DEBUG: yes',
      '  net:',
      '    wlan: { type: wifi, intfName: wlan0, ssid: lab, dhcp: { leasetime: 30m } }',
      'x_unknown: ignored',
      '',
    ].join('\n');
    expect((await post(target, 'application/yaml', yaml)).status).toBe(200);
    expect(target.submitted).toEqual([
      {
        action: 'install',
        chute: 'hello-yaml',
        image: `hello@sha256:${'ab'.repeat(32)}`,
        version: '2',
        config: { environment: { DEBUG: true }, net: { wlan: { type: 'wifi', intfName: 'wlan0', ssid: 'lab', dhcp: { leasetime: '30m' } } } },
        environment: {},
        allocation: {},
      },
    ]);
  });

  it('responds with 409 when a chute by that name is installed, and submits nothing', async () => {
    const target = device();
    const out = await postJson(target, { name: 'hello', image: 'hello-world:2' });
    expect(out).toMatchObject({ status: 409, body: { status: 409, detail: 'a chute named hello is already installed' } });
    expect(out.headers['content-type']).toBe('application/problem+json');
    expect(target.submitted).toEqual([]);
  });

  it('responds with 422 listing every violation with its path in the body, those of the configuration under body.config., and submits nothing', async () => {
    const target = device();
    const body = {
      name: '../etc',
      image: 'Hello-World:1',
      version: ['1'],
      environment: { PORT: 8080, 'A=B': 'x' },
      allocation: { cpu_shares: 1, prioritize_traffic: 'yes' },
      config: {
        web: { port: 0 },
        net: { wlan: { type: 'wifi', intfName: 'wlan0', ssid: 'x'.repeat(33), key: 'short' }, guest: { type: 'vlan', intfName: 'eth1', vlan_id: 4095 } },
      },
    };
    const out = await postJson<InputProblem>(target, body);
    expect(out.status).toBe(422);
    expect(out.headers['content-type']).toBe('application/problem+json');
    expect((out.body.errors as { path: string }[]).map((error) => error.path).sort()).toEqual([
      'body.allocation.cpu_shares',
      'body.allocation.prioritize_traffic',
      'body.config.net.guest.vlan_id',
      'body.config.net.wlan.key',
      'body.config.net.wlan.ssid',
      'body.config.web.port',
      'body.environment.A=B',
      'body.environment.PORT',
      'body.image',
      'body.name',
      'body.version',
    ]);
    expect(out.body.errors).toContainEqual({ path: 'body.allocation.cpu_shares', message: 'must be an integer of at least 2' });
    expect(out.body.errors).toContainEqual({ path: 'body.image', message: expect.stringContaining('must be an image reference') });
    expect(out.body.detail).toMatch(/^the install request is not valid: .* \(and 10 more\)$/);
    expect(target.submitted).toEqual([]);
  });

  it('responds with 422 naming body.config.net.<name>.mode for a monitor interface where a lab link stands in for the radios, and submits nothing', async () => {
    const target = memoryDevice(combine(pciRouter, { settings: { lab_link: 'lab0' } }));
    const body = { name: 'sniffer', image: 'busybox', config: { net: { mon: { type: 'wifi', mode: 'monitor', intfName: 'mon0' } } } };
    const out = await callFunctionRaw(install, target, { body: { contentType: 'application/json', text: JSON.stringify(body) }, refusedByDevice: true });
    expect(out).toMatchObject({
      status: 422,
      body: { errors: [{ path: 'body.config.net.mon.mode', message: expect.stringContaining('a lab link (--lab-link) stands in') }] },
    });
    expect(out.headers['content-type']).toBe('application/problem+json');
    expect(target.submitted).toEqual([]);
  });

  it('responds with 422 naming body.config.net.<name>.type for a VLAN network on a device without br-lan or without 802.1Q, and submits nothing', async () => {
    const body = JSON.stringify({ name: 'office', image: 'busybox', config: { net: { staff: { type: 'vlan', intfName: 'vlan0', vlan_id: 30 } } } });
    for (const [lacking, message] of [
      [vlanKernel, 'a VLAN network is tagged on the LAN interface br-lan, and this device has none'],
      [lanBridge, "a VLAN network needs 802.1Q, and this device's kernel has none (no 8021q loaded, built in or installed)"],
    ] as const) {
      const target = memoryDevice(combine(pciRouter, lacking));
      const out = await callFunctionRaw(install, target, { body: { contentType: 'application/json', text: body }, refusedByDevice: true });
      expect(out).toMatchObject({ status: 422, body: { errors: [{ path: 'body.config.net.staff.type', message }] } });
      expect(target.submitted).toEqual([]);
    }
    const able = memoryDevice(combine(pciRouter, lanBridge, vlanKernel));
    expect((await callFunctionRaw(install, able, { body: { contentType: 'application/json', text: body } })).status).toBe(200);
    const lab = memoryDevice(combine(pciRouter, { settings: { lab_link: 'lab0' } }));
    expect((await callFunctionRaw(install, lab, { body: { contentType: 'application/json', text: body } })).status, 'a lab link stands in for br-lan').toBe(
      200,
    );
  });

  it('responds with 422 for a missing name and image, and for a configuration that is not a mapping', async () => {
    const target = device();
    const out = await postJson<InputProblem>(target, { config: ['web'] });
    expect(out.body.errors).toEqual(
      expect.arrayContaining([
        { path: 'body.name', message: 'is required' },
        { path: 'body.image', message: 'is required' },
        { path: 'body.config', message: expect.any(String) },
      ]),
    );
    expect(out.body.errors).toHaveLength(3);
    expect(target.submitted).toEqual([]);
  });

  it('checks the configuration in a YAML body too, naming its paths under body.config.', async () => {
    const target = device();
    const out = await post<InputProblem>(
      target,
      'text/yaml',
      'name: web\nimage: web:1\nconfig:\n  net:\n    wlan: { type: wifi, intfName: Wlan0, dhcp: { limit: 0 } }\n',
    );
    expect(out.status).toBe(422);
    expect((out.body.errors as { path: string }[]).map((error) => error.path).sort()).toEqual([
      'body.config.net.wlan.dhcp.limit',
      'body.config.net.wlan.intfName',
    ]);
    expect(target.submitted).toEqual([]);
  });

  it('responds with 400, 415 or 422 for a body that is not a document mapping, and submits nothing', async () => {
    const target = device();
    expect((await post(target, 'application/json', '{"name": ')).status).toBe(400);
    expect((await post(target, 'application/yaml', 'name: [1\n')).status).toBe(400);
    expect((await post(target, 'text/plain', 'name: web')).status).toBe(415);
    expect((await post(target, 'application/json', '')).status).toBe(422);
    expect((await post(target, 'application/json', '["web"]')).status).toBe(422);
    expect(target.submitted).toEqual([]);
  });
});

describe('isImageReference', () => {
  it('accepts repo, repo:tag, a registry with a port, nested paths and a sha256 digest', () => {
    for (const image of [
      'busybox',
      'busybox:1.36',
      'library/busybox:latest',
      'localhost:5000/a/b_c__d-e.f:v1.0-rc_1',
      'ghcr.io/owner/img',
      `img@sha256:${'0f'.repeat(32)}`,
      'a---b',
    ]) {
      expect(isImageReference(image), image).toBe(true);
    }
  });

  it('refuses upper case repositories, empty or bad tags, other digests, spaces and a name over 255 characters', () => {
    for (const image of [
      '',
      'Busybox',
      'busybox:',
      'busybox:-x',
      `busybox:${'t'.repeat(129)}`,
      'img@sha256:abc',
      `img@md5:${'0f'.repeat(16)}`,
      'a b',
      '/busybox',
      'busybox/',
      'a..b',
      `a:1@sha256:${'0f'.repeat(32)}`,
      'x'.repeat(256),
    ]) {
      expect(isImageReference(image), image).toBe(false);
    }
    expect(isImageReference('x'.repeat(255))).toBe(true);
  });
});

describe('POST /api/v1/chutes/ with an image archive (application/x-tar)', () => {
  /** The upload: the query and the bytes of the archive. */
  function upload<T = unknown>(target: ReturnType<typeof device>, query: Record<string, string>, bytes: Uint8Array): Promise<RawAnswer<T>> {
    return callFunctionRaw<T>(install, target, { query, body: { contentType: 'application/x-tar', bytes } });
  }

  it('responds with 200 and loads the archive, then queues an install from its first tag with an empty configuration', async () => {
    const target = device();
    const archive = dockerSaveArchive(['uploaded/web:2', 'uploaded/web:latest']);
    const out = await upload(target, { name: 'web', version: '2' }, archive);
    expect(out).toMatchObject({ status: 200, body: { change_id: 1 } });
    expect(target.loaded).toEqual([archive]);
    expect(target.submitted).toEqual([{ action: 'install', chute: 'web', image: 'uploaded/web:2', version: '2', config: {}, environment: {}, allocation: {} }]);
  });

  it('responds with 422 naming body and query.name for a tar without a tagged image, bytes that are not a tar or no name, 400 for a name that is none, and loads nothing', async () => {
    const target = device();
    const untagged = await upload<InputProblem>(target, {}, dockerSaveArchive([]));
    expect(untagged).toMatchObject({ status: 422 });
    expect(untagged.body.errors.map((error: { path: string }) => error.path).sort()).toEqual(['body', 'query.name']);
    const notTar = await upload<InputProblem>(target, { name: 'web' }, new TextEncoder().encode('{"name":"web"}'));
    expect(notTar).toMatchObject({ status: 422, body: { errors: [{ path: 'body' }] } });
    expect(notTar.body.errors[0]?.message).toMatch(/not a tar/);
    expect((await upload<InputProblem>(target, {}, dockerSaveArchive(['a:1']))).body.errors).toEqual([
      { path: 'query.name', message: expect.stringMatching(/required/) },
    ]);
    const badName = await upload<InputProblem>(target, { name: '-bad' }, dockerSaveArchive(['a:1']));
    expect(badName).toMatchObject({ status: 400, body: { errors: [{ path: 'query.name', message: expect.stringMatching(/^must be a chute name/) }] } });
    expect(target.loaded).toEqual([]);
    expect(target.submitted).toEqual([]);
  });

  it('responds with 409 for a name that is taken, before loading anything', async () => {
    const target = device();
    expect((await upload(target, { name: 'hello' }, dockerSaveArchive(['a:1']))).status).toBe(409);
    expect(target.loaded).toEqual([]);
  });
});

describe("POST /api/v1/chutes/ with a chute's source (application/x-tar with paradrop.yaml, as pdtools install-chute sends it)", () => {
  /** The upload: the bytes of the chute's source. */
  function upload<T = unknown>(target: ReturnType<typeof device>, bytes: Uint8Array): Promise<RawAnswer<T>> {
    return callFunctionRaw<T>(install, target, { body: { contentType: 'application/x-tar', bytes } });
  }

  const DOCKERFILE = 'FROM chutebox-test:sleeper\nCOPY greeting.txt /greeting.txt\n';

  it('responds with 200 and queues an install that builds from the tar, with the name, version and configuration of paradrop.yaml', async () => {
    const target = device();
    const yaml = [
      'name: web',
      'version: 3',
      'environment: { STAGE: test, PORT: 8080 }',
      'services:',
      '  main:',
      '    type: normal',
      '    source: .',
      '    environment: { MODE: demo }',
      '    interfaces:',
      '      wlan0:',
      '        type: wifi-ap',
      '        dhcp: { leasetime: 12h, limit: 250, start: 4 }',
      '        wireless: { ssid: lab, key: a-passphrase, isolate: true }',
      '    requests:',
      '      port-bindings:',
      '        - { external: 8080, internal: 80 }',
      'web: { service: main, port: 80 }',
      '',
    ].join('\n');
    const source = tarArchive({ 'paradrop.yaml': yaml, Dockerfile: DOCKERFILE, 'greeting.txt': 'hi\n' });
    const out = await upload(target, source);
    expect(out).toMatchObject({ status: 200, body: { change_id: 1 } });
    expect(target.loaded).toEqual([]);
    expect(target.submitted).toEqual([
      {
        action: 'install',
        chute: 'web',
        image: null,
        source,
        version: '3',
        environment: { STAGE: 'test', PORT: '8080' },
        allocation: {},
        config: {
          environment: { MODE: 'demo' },
          net: {
            wlan0: {
              dhcp: { leasetime: '12h', limit: 250, start: 4 },
              intfName: 'wlan0',
              type: 'wifi',
              ssid: 'lab',
              key: 'a-passphrase',
              options: { isolate: true },
            },
          },
          host_config: { port_bindings: { 80: 8080 } },
          web: { service: 'main', port: 80 },
        },
        services: { main: 'main', services: { main: { type: 'normal', image: null, source: '' } } },
        owner: null,
      },
    ]);
  });

  it('takes the older form (config: at the top level, kept as written) and paradrop.yml under ./', async () => {
    const target = device();
    const yaml = 'name: old\nconfig:\n  web: { port: 5000 }\n  net:\n    wifi: { type: wifi, intfName: wlan0, ssid: seccam }\n  x_custom: kept\n';
    const out = await upload(target, tarArchive({ './paradrop.yml': yaml, './Dockerfile': DOCKERFILE }));
    expect(out.status).toBe(200);
    expect(target.submitted).toMatchObject([
      {
        action: 'install',
        chute: 'old',
        image: null,
        version: null,
        environment: {},
        config: { web: { port: 5000 }, net: { wifi: { type: 'wifi', intfName: 'wlan0', ssid: 'seccam' } }, x_custom: 'kept' },
      },
    ]);
  });

  it('responds with 422 listing every violation with its path under body.paradrop.yaml, and submits nothing', async () => {
    const target = device();
    const yaml = [
      'name: -bad',
      'version: [1]',
      'environment: { PORT: [80] }',
      'services:',
      '  main:',
      '    type: light',
      '    source: app',
      '    interfaces:',
      '      wlan0: { type: wifi-ap, wireless: { ssid: lab, key: short } }',
      'web: { service: main, port: 0 }',
      '',
    ].join('\n');
    const out = await upload<InputProblem>(target, tarArchive({ 'paradrop.yaml': yaml }));
    expect(out.status).toBe(422);
    expect((out.body.errors as { path: string }[]).map((error) => error.path).sort()).toEqual([
      'body.paradrop.yaml.environment.PORT',
      'body.paradrop.yaml.name',
      'body.paradrop.yaml.services.main.command',
      'body.paradrop.yaml.services.main.image',
      'body.paradrop.yaml.services.main.interfaces.wlan0.wireless.key',
      'body.paradrop.yaml.services.main.source',
      'body.paradrop.yaml.version',
      'body.paradrop.yaml.web.port',
    ]);
    expect(out.body.errors).toContainEqual({
      path: 'body.paradrop.yaml.services.main.image',
      message: expect.stringMatching(/runtime of a light service: node, python2, python3, go/),
    });
    expect(out.body.errors).toContainEqual({ path: 'body.paradrop.yaml.services.main.source', message: expect.stringMatching(/no file under app\//) });
    expect(target.submitted).toEqual([]);
  });

  it('queues a chute of two services: each its own folder, command and environment, web.service its main one, networks from both', async () => {
    const target = device();
    const yaml = [
      'name: pair',
      'owner: alice',
      'services:',
      '  db:',
      '    type: image',
      '    image: busybox:1',
      '    command: [httpd, -f, -p, "6379"]',
      '    environment: { ROLE: db }',
      '  web:',
      '    source: ./web/',
      '    command: httpd -f -p 80',
      '    environment: { ROLE: web }',
      '    interfaces:',
      '      wlan0: { type: wifi-ap, wireless: { ssid: lab } }',
      '    requests: { port-bindings: [{ external: 8080, internal: 80 }] }',
      'web: { service: web, port: 80 }',
      '',
    ].join('\n');
    const source = tarArchive({ 'paradrop.yaml': yaml, 'web/Dockerfile': DOCKERFILE, 'web/index.html': 'hi\n' });
    expect(await upload(target, source)).toMatchObject({ status: 200, body: { change_id: 1 } });
    expect(target.submitted).toMatchObject([
      {
        chute: 'pair',
        owner: 'alice',
        config: { environment: { ROLE: 'web' }, net: { wlan0: { type: 'wifi', ssid: 'lab' } }, host_config: { port_bindings: { 80: 8080 } } },
        services: {
          main: 'web',
          services: {
            db: { type: 'image', image: 'busybox:1', command: ['httpd', '-f', '-p', '6379'], environment: { ROLE: 'db' } },
            web: { type: 'normal', image: null, source: 'web', command: 'httpd -f -p 80' },
          },
        },
      },
    ]);
  });

  it('queues a light chute (older form: type light, use, command) with no Dockerfile of its own', async () => {
    const target = device();
    const source = tarArchive({ 'paradrop.yaml': 'name: tiny\ntype: light\nuse: python3\ncommand: python3 main.py\n', 'main.py': 'print(1)\n' });
    expect(await upload(target, source)).toMatchObject({ status: 200 });
    expect(target.submitted).toMatchObject([
      { chute: 'tiny', services: { main: 'main', services: { main: { type: 'light', use: 'python3', source: '', command: 'python3 main.py' } } } },
    ]);
  });

  it('responds with 422 naming each bad service: an unknown web.service, a name no container takes, a folder without Dockerfile, one interface in two services, a command on two lines', async () => {
    const target = device();
    const yaml = [
      'name: pair',
      'services:',
      '  a:',
      '    source: a',
      '    command: "sleep 1\\nEXPOSE 1"',
      '    interfaces: { wlan0: { type: wifi-ap } }',
      '  b:',
      '    type: image',
      '    image: Busybox',
      '    interfaces: { wlan0: { type: wifi-ap } }',
      '  Bad_Name: { type: image, image: busybox }',
      'web: { service: nothere, port: 80 }',
      '',
    ].join('\n');
    const out = await upload<InputProblem>(target, tarArchive({ 'paradrop.yaml': yaml, 'a/app.sh': 'echo\n' }));
    expect(out.status).toBe(422);
    expect((out.body.errors as { path: string }[]).map((error) => error.path).sort()).toEqual([
      'body.paradrop.yaml.services.Bad_Name',
      'body.paradrop.yaml.services.a.command',
      'body.paradrop.yaml.services.a.source',
      'body.paradrop.yaml.services.b.image',
      'body.paradrop.yaml.services.b.interfaces.wlan0',
      'body.paradrop.yaml.web.service',
    ]);
    expect(target.submitted).toEqual([]);
  });

  it('responds with 422 for a missing name and for paradrop.yaml that is not YAML', async () => {
    const target = device();
    const nameless = await upload(target, tarArchive({ 'paradrop.yaml': 'version: 1\n', Dockerfile: DOCKERFILE }));
    expect(nameless.body).toMatchObject({ status: 422, errors: [{ path: 'body.paradrop.yaml.name', message: expect.stringMatching(/is required/) }] });
    const notYaml = await upload(target, tarArchive({ 'paradrop.yaml': 'name: [x\n', Dockerfile: DOCKERFILE }));
    expect(notYaml.body).toMatchObject({ status: 422, errors: [{ path: 'body.paradrop.yaml' }] });
    expect(target.submitted).toEqual([]);
  });

  it('responds with 422 naming body for a tar with neither paradrop.yaml nor manifest.json, saying what was expected', async () => {
    const target = device();
    const out = await upload(target, tarArchive({ Dockerfile: DOCKERFILE, 'sub/paradrop.yaml': 'name: deep\n' }));
    expect(out.body).toMatchObject({
      status: 422,
      errors: [{ path: 'body', message: expect.stringMatching(/paradrop\.yaml at its root.*manifest\.json at its root/) }],
    });
    expect(target.submitted).toEqual([]);
  });

  it('responds with 409 for the name of an installed chute, and submits nothing', async () => {
    const target = device();
    const out = await upload(target, tarArchive({ 'paradrop.yaml': 'name: hello\n', Dockerfile: DOCKERFILE }));
    expect(out).toMatchObject({ status: 409, body: { detail: 'a chute named hello is already installed' } });
    expect(target.submitted).toEqual([]);
  });
});
