import { execFile, spawnSync } from 'node:child_process';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { ChangeAccepted } from '../functions/chutes/schemas.ts';
import type { HostConfig } from '../functions/config/host-config.ts';
import type { PdconfStatus, ProvisionStatus, SettingsRecord } from '../functions/config/schemas.ts';
import type { InputProblem } from './support/call-function.ts';
import { call, finalChange, type HttpAnswer, getJson } from './support/http-client.ts';
import { useHttpController } from './support/http-controller.ts';
import { sshKey } from './support/ssh-keys.ts';
import { CLEAN_ENV, CLI, serveArgs, useChutebox, type Started } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';
import { writeScript } from './support/tool-scripts.ts';

/**
 * The device configuration of `chutebox serve` as a user sees it over HTTP: settings in their three
 * layers, the host configuration applied through pdconf's apply commands, SSH keys written into a
 * home folder, provisioning and telemetry against a controller on a real socket. No container engine.
 */

const temp = useTempDir('chutebox-runtime-config-');
const start = useChutebox();

const PDCONF_FILES = ['network', 'wireless', 'dhcp', 'firewall'] as const;
const IS_ROOT = process.getuid?.() === 0;

/** `chutebox serve` on loopback, a free port, no engine, the passwd file given. */
function serveWithPasswd(stateDir: string, passwdFile: string, extra: string[] = []): string[] {
  return serveArgs(stateDir, path.join(temp.path(), 'none.sock'), ['--passwd-file', passwdFile, ...extra]);
}

/** PUT /api/v1/config/hostconfig, then waits for its change to become final. */
async function putHostConfig(server: Started, config: unknown) {
  const answer = await call<ChangeAccepted>(server.url, 'PUT', '/api/v1/config/hostconfig', { json: config });
  expect(answer.status, answer.text).toBe(200);
  return finalChange(server.url, answer.body.change_id);
}

const mode = async (file: string) => (await stat(file)).mode & 0o777;

describe('GET /api/v1/config/settings', () => {
  it('responds with each setting from its winning layer: a flag over CHUTEBOX_* over the settings file, with the real port and absolute paths', async () => {
    const dir = await temp.folder('settings');
    const stateDir = path.join(dir, 'state');
    const passwdFile = path.join(dir, 'passwd');
    const settingsFile = path.join(dir, 'settings');
    // Relative paths (from this process's folder, which the server shares) must come back absolute.
    const relative = (file: string) => path.relative(process.cwd(), file);
    const apply = await writeScript(dir, 'apply', 'exit 0');
    await writeFile(
      settingsFile,
      [
        '# chutebox settings',
        'host=127.0.0.1',
        'portal_server_port=0',
        'tool_timeout=7',
        'iw=/from/file/iw',
        'hostapd_cli=/from/file/hostapd_cli',
        'hostapd_event_program=/from/file/echo',
        `passwd_file=${relative(passwdFile)}`,
        `docker_socket=${path.join(dir, 'none.sock')}`,
        `pdconf_apply_network='${apply} network {file}'`,
        '',
      ].join('\n'),
    );
    const env = { ...CLEAN_ENV, CHUTEBOX_IW: '/from/env/iw', CHUTEBOX_HOSTAPD_CLI: '/from/env/hostapd_cli', CHUTEBOX_CONTROLLER_TIMEOUT: '3' };
    const server = await start(
      ['serve', '--settings', relative(settingsFile), '--state-dir', relative(stateDir), '--hostapd-cli', '/from/flag/hostapd_cli'],
      env,
    );

    const settings = await getJson<SettingsRecord>(server, '/config/settings');
    expect(settings).toMatchObject({
      host: '127.0.0.1',
      portal_server_port: Number(new URL(server.url).port),
      tool_timeout: 7,
      iw: '/from/env/iw',
      hostapd_cli: '/from/flag/hostapd_cli',
      hostapd_event_program: '/from/file/echo',
      controller_timeout: 3,
      telemetry_queue_size: 100,
      change_log_records: 200,
      change_log_days: 30,
      log_level: 'info',
      log_buffer: 256,
      pdconf_apply_network: [apply, 'network', '{file}'],
      pdconf_apply_wireless: null,
      state_dir: stateDir,
      passwd_file: passwdFile,
      settings_file: settingsFile,
    });
    expect(settings.portal_server_port).toBeGreaterThan(0);
    expect((await stat(stateDir)).isDirectory()).toBe(true);
  });

  it('chutebox serve exits with code 2 naming an unknown name in the settings file, and makes no state dir', async () => {
    const dir = await temp.folder('bad-settings');
    const settingsFile = path.join(dir, 'settings');
    await writeFile(settingsFile, 'portal_server_port=0\npdconf_aply_network=/bin/true\n');
    const stateDir = path.join(dir, 'state');
    const result = spawnSync(process.execPath, [CLI, 'serve', '--settings', settingsFile, '--state-dir', stateDir], {
      env: CLEAN_ENV,
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('"pdconf_aply_network" is not a setting');
    expect(result.stdout).not.toContain('listening on');
    await expect(stat(stateDir)).rejects.toThrow(/ENOENT/);
  });
});

describe('PUT /api/v1/config/hostconfig and pdconf on chutebox serve', () => {
  let dir: string;
  let stateDir: string;
  let args: string[];
  let server: Started;
  let generated: HostConfig;
  let first: HostConfig;
  let second: HostConfig;

  const logFile = () => path.join(dir, 'apply.log');
  const pdconfFile = (file: string) => path.join(stateDir, 'pdconf', file);
  /** The apply commands run so far, one `<file> <path>` line each. */
  const applied = async () => (await readFile(logFile(), 'utf8').catch(() => '')).split('\n').filter(Boolean);
  /** The apply commands that ran while `action` ran. */
  async function appliedDuring(action: () => Promise<unknown>): Promise<string[]> {
    const before = (await applied()).length;
    await action();
    return (await applied()).slice(before);
  }
  const withLan = (config: HostConfig, ipaddr: string) => ({ ...config, lan: { ...config.lan, ipaddr } });

  beforeAll(async () => {
    dir = await temp.folder('hostconfig');
    stateDir = path.join(dir, 'state');
    // Logs every run; exits 1 while <dir>/fail-<file> exists.
    const apply = await writeScript(dir, 'apply', `echo "$*" >> '${logFile()}'\nif [ -e '${dir}/fail-'"$1" ]; then echo "cannot apply $1" >&2; exit 1; fi`);
    const commands = PDCONF_FILES.flatMap((file) => [`--pdconf-apply-${file}`, `${apply} ${file} {file}`]);
    args = serveWithPasswd(stateDir, path.join(dir, 'passwd'), commands);
    server = await start(args);
    generated = await getJson<HostConfig>(server, '/config/hostconfig');
    // GET pdconf answers once the start has applied the rendered files (GET hostconfig does not wait for that).
    await getJson(server, '/config/pdconf');
  });

  it('applies every rendered file once at the first start', async () => {
    expect(await applied()).toEqual(PDCONF_FILES.map((file) => `${file} ${pdconfFile(file)}`));
  });

  it('a PUT changing the LAN address succeeds: hostconfig.yaml (mode 600) holds it, pdconf/network the address, and only the network command ran, once', async () => {
    first = withLan(generated, '10.42.0.1');
    let change: Awaited<ReturnType<typeof putHostConfig>> | undefined;
    const ran = await appliedDuring(async () => (change = await putHostConfig(server, first)));
    expect(change!.state, JSON.stringify(change!.messages)).toBe('succeeded');
    expect(change!).toMatchObject({ action: 'update-hostconfig', chute: null });
    expect(ran).toEqual([`network ${pdconfFile('network')}`]);

    const stored = path.join(stateDir, 'hostconfig.yaml');
    expect(await mode(stored)).toBe(0o600);
    expect(parseYaml(await readFile(stored, 'utf8'), { version: '1.1' })).toEqual(first);
    expect(await readFile(pdconfFile('network'), 'utf8')).toContain("option ipaddr '10.42.0.1'");
    expect(await getJson(server, '/config/hostconfig')).toEqual(first);
  });

  it('a second PUT changing only the firewall runs only the firewall command', async () => {
    second = { ...first, firewall: { ...first.firewall, defaults: { ...first.firewall.defaults, forward: 'DROP' } } };
    let change: Awaited<ReturnType<typeof putHostConfig>> | undefined;
    const ran = await appliedDuring(async () => (change = await putHostConfig(server, second)));
    expect(change!.state, JSON.stringify(change!.messages)).toBe('succeeded');
    expect(ran).toEqual([`firewall ${pdconfFile('firewall')}`]);
    expect(await readFile(pdconfFile('firewall'), 'utf8')).toMatch(/option forward 'DROP'/);
  });

  it('a PUT whose apply command exits 1 fails; GET hostconfig and hostconfig.yaml are the previous configuration, and GET pdconf shows the file failed', async () => {
    await writeFile(path.join(dir, 'fail-network'), '');
    const change = await putHostConfig(server, withLan(second, '10.43.0.1'));
    expect(change.state).toBe('failed');
    expect(change.messages.at(-1)!.text).toMatch(/exited with code 1: cannot apply network/);

    expect(await getJson(server, '/config/hostconfig')).toEqual(second);
    expect(parseYaml(await readFile(path.join(stateDir, 'hostconfig.yaml'), 'utf8'), { version: '1.1' })).toEqual(second);
    expect(await readFile(pdconfFile('network'), 'utf8')).toContain("option ipaddr '10.42.0.1'");

    const sections = await getJson<PdconfStatus>(server, '/config/pdconf');
    const network = sections.filter((section) => section.comment.startsWith('network: '));
    expect(network.length).toBeGreaterThan(0);
    for (const section of network) {
      expect(section).toMatchObject({ success: false, comment: expect.stringMatching(/exited with code 1: cannot apply network$/) });
    }
    for (const section of sections.filter((s) => !s.comment.startsWith('network: '))) expect(section.success, JSON.stringify(section)).toBe(true);
  });

  it('PUT /api/v1/config/pdconf applies every file again, in order, and answers each section applied', async () => {
    await rm(path.join(dir, 'fail-network'));
    let answer: HttpAnswer<PdconfStatus>;
    const ran = await appliedDuring(async () => (answer = await call<PdconfStatus>(server.url, 'PUT', '/api/v1/config/pdconf')));
    expect(answer!.status, answer!.text).toBe(200);
    expect(ran).toEqual(PDCONF_FILES.map((file) => `${file} ${pdconfFile(file)}`));
    expect(answer!.body.length).toBeGreaterThan(0);
    for (const section of answer!.body)
      expect(section).toMatchObject({ success: true, age: 0, comment: expect.stringMatching(/^(\w+): applied with \S+ \1 /) });
    expect(await getJson(server, '/config/pdconf')).toEqual(answer!.body);
  });

  it('after a restart on the same state dir, GET hostconfig and GET pdconf answer as before, and nothing is applied again', async () => {
    const pdconfBefore = await getJson<PdconfStatus>(server, '/config/pdconf');
    const withoutAge = (sections: PdconfStatus) => sections.map(({ age: _age, ...section }) => section);
    const ran = await appliedDuring(async () => {
      await server.stop();
      server = await start(args);
    });
    expect(ran).toEqual([]);
    expect(await getJson(server, '/config/hostconfig')).toEqual(second);
    expect(withoutAge(await getJson<PdconfStatus>(server, '/config/pdconf'))).toEqual(withoutAge(pdconfBefore));
  });
});

describe.skipIf(!IS_ROOT)('POST /api/v1/config/sshKeys/:user on chutebox serve (as root)', () => {
  const UID = 4242;
  let home: string;
  let server: Started;

  beforeAll(async () => {
    const dir = await temp.folder('ssh');
    home = path.join(dir, 'home', 'tester');
    await mkdir(home, { recursive: true });
    const passwdFile = path.join(dir, 'passwd');
    await writeFile(passwdFile, `root:x:0:0:root:/root:/bin/sh\ntester:x:${UID}:${UID}:Test User:${home}:/bin/sh\n`);
    server = await start(serveWithPasswd(path.join(dir, 'state'), passwdFile));
  });

  it("writes the keys into the user's ~/.ssh/authorized_keys (600 in a 700 .ssh, owned by the user), as ssh-keygen reads them", async () => {
    for (const [name, expected] of [
      ['ed25519', [sshKey('ed25519')]],
      ['rsa-2048', [sshKey('ed25519'), sshKey('rsa-2048')]],
    ] as const) {
      const answer = await call(server.url, 'POST', '/api/v1/config/sshKeys/tester', { json: { key: sshKey(name) } });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body).toEqual(expected);
    }
    const ssh = path.join(home, '.ssh');
    const keys = path.join(ssh, 'authorized_keys');
    expect(await stat(ssh)).toMatchObject({ uid: UID, gid: UID });
    expect(await mode(ssh)).toBe(0o700);
    expect(await stat(keys)).toMatchObject({ uid: UID, gid: UID });
    expect(await mode(keys)).toBe(0o600);
    expect(await readFile(keys, 'utf8')).toBe(`${sshKey('ed25519')}\n${sshKey('rsa-2048')}\n`);

    const fingerprints = async (file: string) => (await promisify(execFile)('ssh-keygen', ['-l', '-f', file], { encoding: 'utf8' })).stdout.trim().split('\n');
    const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/ssh-keys/${name}.pub`, import.meta.url));
    expect(await fingerprints(keys)).toEqual([...(await fingerprints(fixture('ed25519'))), ...(await fingerprints(fixture('rsa-2048')))]);
    expect(await getJson(server, '/config/sshKeys/tester')).toEqual([sshKey('ed25519'), sshKey('rsa-2048')]);
  });
});

describe('POST /api/v1/config/provision and telemetry on chutebox serve', () => {
  const APITOKEN = 'tok-3f1c9a0d2b7e4c55a1b2c3d4';
  const SILENT_ROUTER = 'silent-router';
  const controller = useHttpController({ apitoken: APITOKEN, silentRouter: SILENT_ROUTER });
  let stateDir: string;
  let args: string[];
  let server: Started;
  const credentials = (overrides: Record<string, string> = {}) => ({
    routerId: 'r-lab-1',
    apitoken: APITOKEN,
    pdserver: controller().url,
    wampRouter: 'ws://127.0.0.1:9086/ws',
    ...overrides,
  });
  const provisionFile = () => path.join(stateDir, 'provision.json');
  const provision = <T = unknown>(body: unknown) => call<T>(server.url, 'POST', '/api/v1/config/provision', { json: body });

  beforeAll(async () => {
    const dir = await temp.folder('provision');
    stateDir = path.join(dir, 'state');
    args = serveWithPasswd(stateDir, path.join(dir, 'passwd'), ['--controller-timeout', '1']);
    server = await start(args);
  });

  it('responds with 422 naming body.apitoken when the controller answers 401, and stores nothing', async () => {
    const answer = await provision<InputProblem>(credentials({ apitoken: 'not-the-token' }));
    expect(answer.status, answer.text).toBe(422);
    expect(answer.body.errors.map((e: { path: string }) => e.path)).toEqual(['body.apitoken']);
    expect(controller().requests.at(-1)).toMatchObject({ method: 'GET', path: '/api/routers/r-lab-1', authorization: 'Bearer not-the-token' });
    await expect(stat(provisionFile())).rejects.toThrow(/ENOENT/);
    expect(await getJson(server, '/config/provision')).toMatchObject({ provisioned: false, routerId: null });
    expect(await getJson(server, '/config/pdid')).toEqual({ pdid: '' });
  });

  it('responds with 504 when the controller does not answer within --controller-timeout 1, and stores nothing', async () => {
    const answer = await provision(credentials({ routerId: SILENT_ROUTER }));
    expect(answer.status, answer.text).toBe(504);
    expect(answer.type).toBe('application/problem+json');
    await expect(stat(provisionFile())).rejects.toThrow(/ENOENT/);
    expect(await getJson(server, '/config/provision')).toMatchObject({ provisioned: false, routerId: null });
  });

  it('responds with 200 when the controller accepts; provision.json (mode 600) holds the token, and no GET answer contains it', async () => {
    const answer = await provision(credentials());
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ provisioned: true, routerId: 'r-lab-1', pdserver: controller().url, httpConnected: true });
    expect(answer.text).not.toContain(APITOKEN);
    expect(await mode(provisionFile())).toBe(0o600);
    expect(JSON.parse(await readFile(provisionFile(), 'utf8'))).toMatchObject({ routerId: 'r-lab-1', apitoken: APITOKEN });
    expect(await getJson(server, '/config/pdid')).toEqual({ pdid: 'r-lab-1' });

    const endpoints = ['provision', 'pdid', 'settings', 'hostconfig', 'new-config', 'new_config', 'pdconf'].map((name) => `/api/v1/config/${name}`);
    endpoints.push('/api/v1/changes/', '/api/v1/info/telemetry', '/api/v1/info/environment');
    for (const endpoint of endpoints) {
      const got = await call(server.url, 'GET', endpoint);
      expect(got.status, endpoint).toBe(200);
      expect(got.text, endpoint).not.toContain(APITOKEN);
    }
  });

  it('with telemetry enabled every 10 s, the controller receives a telemetry report, and GET provision shows its delivery', async () => {
    const from = controller().requests.length;
    const change = await putHostConfig(server, { ...(await getJson<HostConfig>(server, '/config/hostconfig')), telemetry: { enabled: true, interval: 10 } });
    expect(change.state, JSON.stringify(change.messages)).toBe('succeeded');

    const report = await controller().next((r) => r.method === 'POST' && r.path === '/api/routers/r-lab-1/telemetry', from);
    expect(report.authorization).toBe(`Bearer ${APITOKEN}`);
    const body = JSON.parse(report.body);
    expect(Object.keys(body)).toEqual(expect.arrayContaining(['time', 'system', 'network', 'chutes']));
    expect(body.chutes).toEqual([]);

    // The controller has the report before the runtime has the answer: wait for the runtime to note it.
    let status = await getJson<ProvisionStatus>(server, '/config/provision');
    while (status.telemetry.lastSuccess === null && status.telemetry.lastError === null) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = await getJson<ProvisionStatus>(server, '/config/provision');
    }
    expect(status).toMatchObject({ provisioned: true, httpConnected: true, telemetry: { enabled: true, interval: 10, lastError: null, queued: 0 } });
    expect(Date.parse(status.telemetry.lastSuccess ?? '')).not.toBeNaN();
  });

  // That nothing is sent afterwards is shown with fake timers in runtime/controller/telemetry.test.ts.
  it('with telemetry disabled in the host configuration, GET provision shows it off with nothing queued', async () => {
    const change = await putHostConfig(server, { ...(await getJson<HostConfig>(server, '/config/hostconfig')), telemetry: { enabled: false, interval: 10 } });
    expect(change.state, JSON.stringify(change.messages)).toBe('succeeded');
    expect((await getJson<ProvisionStatus>(server, '/config/provision')).telemetry).toMatchObject({ enabled: false, interval: 10, queued: 0 });
  });

  it('after a restart on the same state dir, the device is still provisioned with the same controller, telemetry still off', async () => {
    const before = await getJson<ProvisionStatus>(server, '/config/provision');
    await server.stop();
    server = await start(args);
    expect(await getJson(server, '/config/provision')).toMatchObject({
      provisioned: true,
      routerId: 'r-lab-1',
      pdserver: controller().url,
      provisionedAt: before.provisionedAt,
      telemetry: { enabled: false, interval: 10 },
    });
    expect(await getJson(server, '/config/pdid')).toEqual({ pdid: 'r-lab-1' });
  });
});
