import { describe, expect, it } from 'vitest';
import { decodeDocumentBody, encodeDocument, type DocumentMediaType } from '../core/body/index.ts';
import { HttpProblem, type InputError } from '../core/problem.ts';
import { checkChuteConfig, durationSeconds, environmentStrings, leaseSeconds, type AccessPointEntry } from './chute-config.ts';

/** The two formats a configuration arrives in. */
const FORMATS: [string, DocumentMediaType][] = [
  ['JSON', 'application/json'],
  ['YAML', 'application/yaml'],
];

/** A valid configuration with one network of each kind; each table row changes one field of it. */
function baseConfig(): Record<string, unknown> {
  return {
    environment: { GREETING: 'hello' },
    host_config: { port_bindings: { '80': 8080 }, dns: ['1.1.1.1', '8.8.8.8'] },
    net: {
      wlan: {
        type: 'wifi',
        intfName: 'wlan0',
        dhcp: { lease: '12h', start: 4, limit: 250 },
        ssid: 'chutebox',
        key: 'password',
        options: { isolate: true, maxassoc: 100 },
        dns: ['10.0.0.1'],
        requests: { hwmode: '11g' },
      },
      mon: { type: 'wifi', mode: 'monitor', intfName: 'mon0' },
      lan: { type: 'vlan', intfName: 'vlan0', vlan_id: 10, dhcp: { leasetime: '1h' } },
    },
    web: { port: 8000 },
  };
}

/**
 * A copy of `config` with the field at `path` set: keys after dots, list positions in brackets
 * (`net.wlan.dns[1]`); a key with a dot in it is not supported.
 */
function withField(config: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(config);
  const keys = path.split('.').flatMap((part) => {
    const [, name, index] = /^(.*?)(?:\[(\d+)\])?$/.exec(part)!;
    return index === undefined ? [name!] : [name!, Number(index)];
  });
  let node = copy as Record<string | number, unknown>;
  for (const key of keys.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
    node = node[key] as Record<string | number, unknown>;
  }
  node[keys.at(-1)!] = value;
  return copy;
}

/** The configuration sent as a body of `type` (written by chutebox's own encoder), decoded and checked. */
function send(type: DocumentMediaType, config: Record<string, unknown>): Record<string, unknown> {
  const { body, contentType } = encodeDocument(config, type);
  return checkChuteConfig(decodeDocumentBody(contentType, body)).config;
}

/** The violations a configuration sent as `type` gets: [] when it is accepted. */
function violations(type: DocumentMediaType, config: Record<string, unknown>): InputError[] {
  try {
    send(type, config);
    return [];
  } catch (error) {
    if (!(error instanceof HttpProblem)) throw error;
    expect(error.status).toBe(422);
    return error.errors ?? [];
  }
}

const HEX64 = '0123456789abcdef'.repeat(4);

/**
 * Every bound of the seed's table and of chutebox's decisions: at its edge, just inside and just
 * outside. `at` is the path of the violation when it is not `path` (a bad key of a mapping).
 */
const TABLE: { path: string; value: unknown; ok: boolean; at?: string }[] = [
  // web.port: 1 to 65535
  { path: 'web.port', value: 0, ok: false },
  { path: 'web.port', value: 1, ok: true },
  { path: 'web.port', value: 2, ok: true },
  { path: 'web.port', value: 65534, ok: true },
  { path: 'web.port', value: 65535, ok: true },
  { path: 'web.port', value: 65536, ok: false },
  { path: 'web.port', value: 80.5, ok: false },
  { path: 'web.port', value: '80', ok: false },
  // ssid: at most 32 bytes of UTF-8
  { path: 'net.wlan.ssid', value: 'a'.repeat(31), ok: true },
  { path: 'net.wlan.ssid', value: 'a'.repeat(32), ok: true },
  { path: 'net.wlan.ssid', value: 'a'.repeat(33), ok: false },
  { path: 'net.wlan.ssid', value: 'é'.repeat(16), ok: true },
  { path: 'net.wlan.ssid', value: `${'é'.repeat(16)}a`, ok: false },
  { path: 'net.wlan.ssid', value: '', ok: false },
  // key: 8 to 63 printable ASCII characters, or 64 hex digits
  { path: 'net.wlan.key', value: 'k'.repeat(7), ok: false },
  { path: 'net.wlan.key', value: 'k'.repeat(8), ok: true },
  { path: 'net.wlan.key', value: 'k'.repeat(9), ok: true },
  { path: 'net.wlan.key', value: 'k'.repeat(62), ok: true },
  { path: 'net.wlan.key', value: 'k'.repeat(63), ok: true },
  { path: 'net.wlan.key', value: 'k'.repeat(64), ok: false },
  { path: 'net.wlan.key', value: HEX64, ok: true },
  { path: 'net.wlan.key', value: `${HEX64}0`, ok: false },
  { path: 'net.wlan.key', value: 'pässwörd', ok: false },
  { path: 'net.wlan.key', value: 'with space ~!', ok: true },
  // intfName: [a-z][a-z0-9]*, at most 15 characters, in every kind of network
  { path: 'net.wlan.intfName', value: 'w'.repeat(14), ok: true },
  { path: 'net.wlan.intfName', value: 'w'.repeat(15), ok: true },
  { path: 'net.wlan.intfName', value: 'w'.repeat(16), ok: false },
  { path: 'net.wlan.intfName', value: 'a', ok: true },
  { path: 'net.wlan.intfName', value: '0wlan', ok: false },
  { path: 'net.wlan.intfName', value: 'Wlan0', ok: false },
  { path: 'net.wlan.intfName', value: 'wl-an', ok: false },
  { path: 'net.mon.intfName', value: 'mon_0', ok: false },
  { path: 'net.lan.intfName', value: 'v'.repeat(16), ok: false },
  { path: 'net.wlan.intfName', value: 'eth0', ok: false },
  { path: 'net.lan.intfName', value: 'wlan0', ok: false },
  // dhcp.limit >= 1, dhcp.start >= 0, dhcp.relay not supported yet
  { path: 'net.wlan.dhcp.limit', value: 0, ok: false },
  { path: 'net.wlan.dhcp.limit', value: 1, ok: true },
  { path: 'net.wlan.dhcp.limit', value: 2, ok: true },
  { path: 'net.wlan.dhcp.limit', value: 1.5, ok: false },
  { path: 'net.lan.dhcp.limit', value: 0, ok: false },
  { path: 'net.wlan.dhcp.start', value: -1, ok: false },
  { path: 'net.wlan.dhcp.start', value: 0, ok: true },
  { path: 'net.wlan.dhcp.start', value: 1, ok: true },
  { path: 'net.lan.dhcp.start', value: -1, ok: false },
  { path: 'net.wlan.dhcp.relay', value: '192.168.1.1', ok: false },
  { path: 'net.wlan.dhcp.relay', value: 5, ok: false },
  // l3bridge: not supported yet
  { path: 'net.wlan.l3bridge', value: 'wan', ok: false },
  // lease durations, under both spellings
  { path: 'net.wlan.dhcp.lease', value: 0, ok: false },
  { path: 'net.wlan.dhcp.lease', value: 1, ok: true },
  { path: 'net.wlan.dhcp.lease', value: 3600, ok: true },
  { path: 'net.wlan.dhcp.lease', value: '3600', ok: true },
  { path: 'net.wlan.dhcp.lease', value: '0s', ok: false },
  { path: 'net.wlan.dhcp.lease', value: '1s', ok: true },
  { path: 'net.wlan.dhcp.lease', value: '45s', ok: true },
  { path: 'net.wlan.dhcp.lease', value: '30m', ok: true },
  { path: 'net.wlan.dhcp.lease', value: '2h', ok: true },
  { path: 'net.wlan.dhcp.lease', value: '1d', ok: true },
  { path: 'net.wlan.dhcp.lease', value: '1w', ok: true },
  { path: 'net.wlan.dhcp.lease', value: 'infinite', ok: true },
  { path: 'net.wlan.dhcp.lease', value: '1.5h', ok: false },
  { path: 'net.wlan.dhcp.lease', value: '2 h', ok: false },
  { path: 'net.wlan.dhcp.lease', value: '2x', ok: false },
  { path: 'net.wlan.dhcp.lease', value: -60, ok: false },
  { path: 'net.lan.dhcp.leasetime', value: '0', ok: false },
  { path: 'net.lan.dhcp.leasetime', value: 60, ok: true },
  { path: 'net.wlan.dhcp', value: { lease: '1h', leasetime: '3600' }, ok: true },
  { path: 'net.wlan.dhcp', value: { lease: '1h', leasetime: '2h' }, ok: false, at: 'net.wlan.dhcp.leasetime' },
  // options
  { path: 'net.wlan.options.acct_interval', value: 0, ok: false },
  { path: 'net.wlan.options.acct_interval', value: 1, ok: true },
  { path: 'net.wlan.options.acct_interval', value: 2, ok: true },
  { path: 'net.wlan.options.maxassoc', value: 0, ok: false },
  { path: 'net.wlan.options.maxassoc', value: 1, ok: true },
  { path: 'net.wlan.options.maxassoc', value: 2, ok: true },
  { path: 'net.wlan.options.maxassoc', value: 2006, ok: true },
  { path: 'net.wlan.options.maxassoc', value: 2007, ok: true },
  { path: 'net.wlan.options.maxassoc', value: 2008, ok: false },
  { path: 'net.wlan.options.hidden', value: false, ok: true },
  { path: 'net.wlan.options.hidden', value: 'yes', ok: false },
  { path: 'net.wlan.options.isolate', value: 1, ok: false },
  { path: 'net.wlan.options.nasid', value: 'ap-1', ok: true },
  { path: 'net.wlan.options.acct_server', value: 1812, ok: false },
  { path: 'net.wlan.options.acct_secret', value: true, ok: false },
  // requests.hwmode
  { path: 'net.wlan.requests.hwmode', value: '11a', ok: true },
  { path: 'net.wlan.requests.hwmode', value: '11b', ok: true },
  { path: 'net.wlan.requests.hwmode', value: '11g', ok: true },
  { path: 'net.wlan.requests.hwmode', value: '11n', ok: false },
  { path: 'net.wlan.requests.hwmode', value: 11, ok: false },
  // ipv4_network in slash notation
  { path: 'net.wlan.ipv4_network', value: '10.0.0.0/24', ok: true },
  { path: 'net.wlan.ipv4_network', value: '10.0.0.0/32', ok: true },
  { path: 'net.wlan.ipv4_network', value: '10.0.0.0/33', ok: false },
  { path: 'net.wlan.ipv4_network', value: '10.0.0.0', ok: false },
  { path: 'net.lan.ipv4_network', value: '256.0.0.0/8', ok: false },
  // DNS servers: IPv4 or IPv6 addresses
  { path: 'net.wlan.dns[1]', value: '2001:4860:4860::8888', ok: true },
  { path: 'net.wlan.dns[1]', value: 'dns.google', ok: false },
  { path: 'net.lan.dns', value: ['10.0.0.1', '10.0.0.256'], ok: false, at: 'net.lan.dns[1]' },
  { path: 'host_config.dns[1]', value: '::1', ok: true },
  { path: 'host_config.dns[1]', value: '8.8.8', ok: false },
  { path: 'host_config.dns', value: '8.8.8.8', ok: false },
  // vlan_id: 1 to 4094
  { path: 'net.lan.vlan_id', value: 0, ok: false },
  { path: 'net.lan.vlan_id', value: 1, ok: true },
  { path: 'net.lan.vlan_id', value: 2, ok: true },
  { path: 'net.lan.vlan_id', value: 4093, ok: true },
  { path: 'net.lan.vlan_id', value: 4094, ok: true },
  { path: 'net.lan.vlan_id', value: 4095, ok: false },
  // port bindings: container port (key) → host port 1 to 65535
  { path: 'host_config.port_bindings.80', value: 0, ok: false },
  { path: 'host_config.port_bindings.80', value: 1, ok: true },
  { path: 'host_config.port_bindings.80', value: 65535, ok: true },
  { path: 'host_config.port_bindings.80', value: 65536, ok: false },
  { path: 'host_config.port_bindings.80', value: '8080', ok: true },
  { path: 'host_config.port_bindings.80', value: '65536', ok: false },
  { path: 'host_config.port_bindings.80', value: 'http', ok: false },
  { path: 'host_config.port_bindings', value: { '0': 80 }, ok: false, at: 'host_config.port_bindings.0' },
  { path: 'host_config.port_bindings', value: { '1': 80 }, ok: true },
  { path: 'host_config.port_bindings', value: { '65535': 80 }, ok: true },
  { path: 'host_config.port_bindings', value: { '65536': 80 }, ok: false, at: 'host_config.port_bindings.65536' },
  { path: 'host_config.port_bindings', value: { '80/tcp': 80, '53/udp': 5353, '132/sctp': 132 }, ok: true },
  { path: 'host_config.port_bindings', value: { '80/icmp': 80 }, ok: false, at: 'host_config.port_bindings.80/icmp' },
  // environment: scalar values
  { path: 'environment.PORT', value: 8080, ok: true },
  { path: 'environment.DEBUG', value: true, ok: true },
  { path: 'environment.EMPTY', value: null, ok: true },
  { path: 'environment.NESTED', value: { a: 1 }, ok: false },
  { path: 'environment.LIST', value: ['a'], ok: false },
  { path: 'environment', value: { 'A=B': 'x' }, ok: false, at: 'environment.A=B' },
  // kinds of network
  { path: 'net.extra', value: { type: 'wan', intfName: 'wan0' }, ok: false, at: 'net.extra.type' },
  { path: 'net.extra', value: { intfName: 'wan0' }, ok: false, at: 'net.extra.type' },
  { path: 'net.mon.mode', value: 'sta', ok: false },
  { path: 'net.wlan.mode', value: 'ap', ok: true },
  { path: 'net.lan.vlan_id', value: undefined, ok: false },
  { path: 'net', value: { 'bad name': { type: 'wifi', intfName: 'wlan9' } }, ok: false, at: 'net.bad name' },
  { path: 'net', value: { [`n${'x'.repeat(63)}`]: { type: 'wifi', intfName: 'wlan9' } }, ok: true },
  // sections must be mappings
  { path: 'web', value: null, ok: false },
  { path: 'net.wlan.dhcp', value: [], ok: false },
];

describe('chute configuration: bounds (PUT /api/v1/chutes/<chute>/config body)', () => {
  for (const [format, type] of FORMATS) {
    describe(`in ${format}`, () => {
      it.each(TABLE.filter((row) => row.ok))('accepts $path = $value', ({ path, value }) => {
        const config = withField(baseConfig(), path, value);
        expect(violations(type, config)).toEqual([]);
        expect(send(type, config)).toEqual(config);
      });

      it.each(TABLE.filter((row) => !row.ok))('rejects $path = $value with one violation at its path', ({ path, value, at }) => {
        expect(violations(type, withField(baseConfig(), path, value))).toEqual([{ path: at ?? path, message: expect.any(String) }]);
      });
    });
  }
});

/** The seed's "Shape of a chute configuration with an access point and a web server", lease spelled `lease`. */
const SEED_SHAPE_JSON = `{
  "net": {
    "wifi": {
      "type": "wifi",
      "intfName": "wlan0",
      "dhcp": { "start": 4, "limit": 250, "lease": "12h" },
      "ssid": "chutebox",
      "options": { "isolate": true, "maxassoc": 100 }
    }
  },
  "web": { "port": 5000 }
}`;

const SEED_SHAPE_YAML = `net:
  wifi:
    type: wifi
    intfName: wlan0
    dhcp:
      start: 4
      limit: 250
      lease: 12h
    ssid: chutebox
    options:
      isolate: true
      maxassoc: 100
web:
  port: 5000
`;

/**
 * A service.yaml as a ParaDrop chute developer writes it: the chute's own fields beside the
 * configuration, numbers and booleans in the environment, variables without a value, YAML 1.1
 * booleans (`no`), a quoted container port, comments.
 */
const SERVICE_YAML = `# Security camera chute
name: seccam
version: 1
description: A ParaDrop chute that turns a cheap WiFi camera into a motion detector.
type: light
use: python2
command: python -u seccam.py
environment:
  IMAGE_INTERVAL: 2.0
  MOTION_THRESHOLD: 40
  SECCAM_MODE: detect
  VERBOSE: yes
  CP_RADIUS_SERVER:
host_config:
  port_bindings:
    '81': 81
  dns:
    - 8.8.8.8
    - 2001:4860:4860::8888
net:
  wifi:
    type: wifi
    intfName: wlan0
    dhcp:
      lease: 12h
      limit: 250
      start: 4
    ssid: seccam42
    key: paradropseccam
    options:
      hidden: no
      isolate: true
    requests:
      hwmode: 11g
web:
  port: 5000
source:
  type: git
  url: https://github.com/ParadropLabs/Security-Cam
packages:
  - iptables
as_root: true
`;

describe('chute configuration: whole documents', () => {
  it.each([
    ['application/json', SEED_SHAPE_JSON],
    ['application/yaml', SEED_SHAPE_YAML],
  ])("accepts the seed's sample shape with lease, as %s", (contentType, body) => {
    const decoded = decodeDocumentBody(contentType, body);
    const { config } = checkChuteConfig(decoded);
    expect(config).toBe(decoded);
    expect(config).toEqual(JSON.parse(SEED_SHAPE_JSON));
    expect(leaseSeconds(config.net!.wifi! as AccessPointEntry)).toBe(12 * 3600);
  });

  it("accepts a ParaDrop developer's service.yaml unchanged, and gives it back as written", () => {
    const decoded = decodeDocumentBody('application/x-yaml', SERVICE_YAML);
    const { config } = checkChuteConfig(decoded);
    expect(config).toBe(decoded);
    expect(config).toMatchObject({
      name: 'seccam',
      environment: { IMAGE_INTERVAL: 2, MOTION_THRESHOLD: 40, VERBOSE: true, CP_RADIUS_SERVER: null },
      net: { wifi: { options: { hidden: false, isolate: true } } },
      packages: ['iptables'],
      as_root: true,
    });
    expect(Object.keys(config)).toEqual([
      'name',
      'version',
      'description',
      'type',
      'use',
      'command',
      'environment',
      'host_config',
      'net',
      'web',
      'source',
      'packages',
      'as_root',
    ]);
    for (const [, type] of FORMATS) {
      const { body, contentType } = encodeDocument(config, type);
      expect(decodeDocumentBody(contentType, body)).toEqual(config);
    }
    expect(environmentStrings(config.environment)).toEqual({
      IMAGE_INTERVAL: '2',
      MOTION_THRESHOLD: '40',
      SECCAM_MODE: 'detect',
      VERBOSE: 'true',
      CP_RADIUS_SERVER: '',
    });
  });

  it.each(FORMATS)('lists every violation of one %s request at once, each with its path', (_, type) => {
    const config = withField(
      withField(
        withField(withField(withField(baseConfig(), 'net.wlan.ssid', 'x'.repeat(33)), 'host_config.dns[1]', 'not-an-address'), 'web.port', 70000),
        'net.wlan.dhcp.limit',
        0,
      ),
      'net.lan.vlan_id',
      4095,
    );
    const problem = (() => {
      try {
        send(type, config);
      } catch (error) {
        return error as HttpProblem;
      }
      throw new Error('accepted');
    })();
    expect(problem.status).toBe(422);
    expect(problem.message).toMatch(/^the chute configuration is not valid: .+ \(and 4 more\)$/);
    expect(new Set(problem.errors!.map((error) => error.path))).toEqual(
      new Set(['net.wlan.ssid', 'host_config.dns[1]', 'web.port', 'net.wlan.dhcp.limit', 'net.lan.vlan_id']),
    );
    expect(problem.errors).toContainEqual({ path: 'web.port', message: 'must be an integer from 1 to 65535' });
    expect(problem.errors).toContainEqual({ path: 'net.wlan.ssid', message: 'must be at most 32 bytes in UTF-8' });
  });

  it('reports a network whose fields are all wrong, and a wrong field beside a lease conflict, in full', () => {
    const config = withField(baseConfig(), 'net.wlan.dhcp', { lease: '1h', leasetime: '2h', limit: 0.5, start: 'x' });
    expect(violations('application/json', config).map((error) => error.path)).toEqual([
      'net.wlan.dhcp.limit',
      'net.wlan.dhcp.start',
      'net.wlan.dhcp.leasetime',
    ]);
  });

  it.each(FORMATS)('keeps unknown fields at every level, in %s', (_, type) => {
    let config = baseConfig();
    for (const path of [
      'x_top',
      'host_config.x_host',
      'net.wlan.x_net',
      'net.wlan.dhcp.x_dhcp',
      'net.wlan.options.x_options',
      'net.wlan.requests.x_requests',
      'net.mon.x_mon',
      'net.lan.x_vlan',
      'web.x_web',
    ]) {
      config = withField(config, path, { kept: [1, 'two', null] });
    }
    config = withField(config, 'net.lan.ssid', 12); // an access point's field on a VLAN means nothing: kept as it is
    expect(send(type, config)).toEqual(config);
  });

  it('answers 422 at the root for a configuration that is not a mapping', () => {
    for (const value of [null, [], 'web: 80', 42]) {
      expect(() => checkChuteConfig(value)).toThrow(expect.objectContaining({ status: 422, errors: [{ path: '', message: 'must be a mapping' }] }));
    }
  });
});

describe('lease durations', () => {
  it('reads the lease of a network under either spelling', () => {
    expect(leaseSeconds({ dhcp: { lease: '2h' } })).toBe(7200);
    expect(leaseSeconds({ dhcp: { leasetime: '30m' } })).toBe(1800);
    expect(leaseSeconds({ dhcp: { leasetime: 3600 } })).toBe(3600);
    expect(leaseSeconds({ dhcp: { lease: '1d', leasetime: 86400 } })).toBe(86400);
    expect(leaseSeconds({ dhcp: { lease: 'infinite' } })).toBe(Infinity);
    expect(leaseSeconds({ dhcp: { limit: 10 } })).toBeUndefined();
    expect(leaseSeconds({})).toBeUndefined();
  });

  it.each([
    ['45s', 45],
    ['30m', 1800],
    ['2h', 7200],
    ['1d', 86400],
    ['1w', 604800],
    ['3600', 3600],
    [3600, 3600],
    ['infinite', Infinity],
    ['0', undefined],
    [0, undefined],
    [1.5, undefined],
    ['1h30m', undefined],
    ['2H', undefined],
    [null, undefined],
  ])('%s is %s seconds', (text, seconds) => {
    expect(durationSeconds(text)).toBe(seconds);
  });
});
