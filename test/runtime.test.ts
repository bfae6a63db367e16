import { spawn, spawnSync } from 'node:child_process';
import { createServer, type Socket } from 'node:net';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hardware, Software, Telemetry } from '../functions/info/schemas.ts';
import { installChute } from './support/chute-state.ts';
import { CLEAN_ENV, CLI, useChutebox, type Started } from './support/spawn.ts';

const DIST_FUNCTIONS = new URL('../dist/functions/', import.meta.url);
const SECRET_NAME = /PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|PRIVATE_?KEY|CREDENTIAL/i;

/** Exactly the environment the server gets: CLEAN_ENV and two probes the environment endpoint must show. */
const SERVER_ENV = { ...CLEAN_ENV, CHUTEBOX_PROBE: 'visible', PROBE_API_KEY: 'must-not-show' };

let tmp: string;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'chutebox-runtime-'));
});

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const launch = useChutebox();
const start = (args: string[], env: NodeJS.ProcessEnv = SERVER_ENV) => launch(args, env);

async function memTotalBytes(): Promise<number> {
  const kb = /^MemTotal:\s+(\d+) kB$/m.exec(await readFile('/proc/meminfo', 'utf8'))![1]!;
  return Number(kb) * 1024;
}

async function uptimeSeconds(): Promise<number> {
  return Math.floor(Number((await readFile('/proc/uptime', 'utf8')).split(' ')[0]));
}

async function osVersion(): Promise<string | null> {
  const openwrt = await readFile('/etc/openwrt_release', 'utf8').catch(() => null);
  const [source, name] = openwrt !== null ? [openwrt, 'DISTRIB_DESCRIPTION'] : [await readFile('/etc/os-release', 'utf8').catch(() => ''), 'PRETTY_NAME'];
  const value = new RegExp(`^${name}=(.*)$`, 'm').exec(source)?.[1];
  return value === undefined ? null : value.replace(/^(["'])(.*)\1$/, '$2');
}

describe('chutebox serve on this machine, fresh state, loopback client', () => {
  let server: Started;
  let stateDir: string;

  beforeAll(async () => {
    stateDir = path.join(tmp, 'fresh', 'state');
    server = await start(['serve', '--host', '127.0.0.1', '--port', '0', '--state-dir', stateDir, '--docker-socket', path.join(tmp, 'no-docker.sock')]);
  });

  const get = async <T = unknown>(endpoint: string) => {
    const res = await fetch(`${server.url}${endpoint}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    return (await res.json()) as T;
  };

  it('prints exactly one "listening on http://127.0.0.1:PORT" line with the real port', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*$/);
    expect(
      server
        .output()
        .split('\n')
        .filter((line) => line.startsWith('listening on')),
    ).toEqual([`listening on ${server.url}`]);
  });

  it('creates its state folder 0700 and a 32-byte token secret 0600', async () => {
    expect((await stat(stateDir)).mode & 0o777).toBe(0o700);
    const secret = await stat(path.join(stateDir, 'auth', 'jwt-secret'));
    expect(secret.size).toBe(32);
    expect(secret.mode & 0o777).toBe(0o600);
  });

  it('GET /api/v1/info/hardware responds with 200, the MemTotal of /proc/meminfo in bytes, the machine and the radios of /sys/class/ieee80211', async () => {
    const hardware = await get<Hardware>('/api/v1/info/hardware');
    expect(hardware.memory).toBe(await memTotalBytes());
    expect(hardware.cpu).toBe(os.machine());
    const radios = await readdir('/sys/class/ieee80211').catch(() => []);
    expect(hardware.wifi).toHaveLength(radios.length);
  });

  it('GET /api/v1/info/software responds with 200, the kernel as <type>-<release>, the OS name and the uptime', async () => {
    const before = await uptimeSeconds();
    const software = await get<Software>('/api/v1/info/software');
    const after = await uptimeSeconds();
    expect(software.kernelVersion).toBe(`${os.type()}-${os.release()}`);
    expect(software.osVersion).toBe(await osVersion());
    expect(software.uptime).toBeGreaterThanOrEqual(before);
    expect(software.uptime).toBeLessThanOrEqual(after);
    const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(software.pdVersion).toBe(pkg.version);
  });

  it('GET /api/v1/info/environment responds with 200 and exactly the environment the server was started with, secrets redacted', async () => {
    const expected = Object.fromEntries(Object.entries(SERVER_ENV).map(([name, value]) => [name, SECRET_NAME.test(name) ? '[redacted]' : value]));
    expect(expected.PROBE_API_KEY).toBe('[redacted]');
    expect(await get('/api/v1/info/environment')).toEqual(expected);
  });

  it('GET /api/v1/info/features responds with 200 and hostapd-control, without docker when there is no engine', async () => {
    expect(await get('/api/v1/info/features')).toEqual(['hostapd-control']);
  });

  it('GET /api/v1/info/telemetry responds with 200 and the CPUs, interfaces and memory of this machine, and no chutes', async () => {
    const before = Date.now() / 1000;
    const telemetry = await get<Telemetry>('/api/v1/info/telemetry');
    const after = Date.now() / 1000;
    expect(telemetry.time).toBeGreaterThanOrEqual(Math.floor(before));
    expect(telemetry.time).toBeLessThanOrEqual(Math.ceil(after));
    expect(telemetry.system.cpu_count).toBe(os.cpus().length);
    expect(telemetry.system.cpu_times).toHaveLength(os.cpus().length);
    expect(telemetry.system.virtual_memory.total).toBe(await memTotalBytes());
    const interfaces = (await readFile('/proc/net/dev', 'utf8'))
      .split('\n')
      .slice(2)
      .filter((line) => line.includes(':'))
      .map((line) => line.split(':')[0]!.trim());
    expect(telemetry.network.map((entry: { name: string }) => entry.name).sort()).toEqual(interfaces.sort());
    expect(telemetry.chutes).toEqual([]);
  });

  it('accepts a trailing slash', async () => {
    expect(await get('/api/v1/info/features/')).toEqual(['hostapd-control']);
  });

  it('responds with a 404 problem for an unknown path', async () => {
    const res = await fetch(`${server.url}/api/v1/info/nothing`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
  });
});

describe('chutebox serve --functions DIR', () => {
  it('mounts only the bundles in DIR', async () => {
    const dir = path.join(tmp, 'only-features');
    await mkdir(dir);
    await copyFile(new URL('info-features-get.mjs', DIST_FUNCTIONS), path.join(dir, 'info-features-get.mjs'));
    const server = await start(['serve', '--host', '127.0.0.1', '--port', '0', '--state-dir', path.join(tmp, 'only-state'), '--functions', dir]);
    expect((await fetch(`${server.url}/api/v1/info/features`)).status).toBe(200);
    for (const other of ['hardware', 'software', 'environment', 'telemetry']) {
      expect((await fetch(`${server.url}/api/v1/info/${other}`)).status).toBe(404);
    }
  });
});

describe('chutebox serve --cors-origin', () => {
  it('answers a preflight without credentials and allows only the configured origin, even on a 401', async () => {
    const stateDir = path.join(tmp, 'cors-state');
    expect(spawnSync(process.execPath, [CLI, 'passwd', '--state-dir', stateDir], { input: 'cors-password\n' }).status).toBe(0);
    const server = await start(['serve', '--host', '127.0.0.1', '--port', '0', '--state-dir', stateDir, '--cors-origin', 'https://router.example']);

    const preflight = await fetch(`${server.url}/api/v1/info/features`, {
      method: 'OPTIONS',
      headers: { origin: 'https://router.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://router.example');
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('PUT');

    const refused = await fetch(`${server.url}/api/v1/info/features`, { headers: { origin: 'https://router.example' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe('https://router.example');

    const foreign = await fetch(`${server.url}/api/v1/info/features`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('chutebox serve settings', () => {
  const run = (args: string[], env: NodeJS.ProcessEnv = SERVER_ENV) => spawnSync(process.execPath, [CLI, ...args], { env, encoding: 'utf8' });

  it('--help lists every flag with its environment variable and exits 0', () => {
    const help = run(['serve', '--help']);
    expect(help.status).toBe(0);
    for (const [flag, env] of [
      ['--host', 'CHUTEBOX_HOST'],
      ['--port', 'CHUTEBOX_PORT'],
      ['--state-dir', 'CHUTEBOX_STATE_DIR'],
      ['--functions', 'CHUTEBOX_FUNCTIONS'],
      ['--cors-origin', 'CHUTEBOX_CORS_ORIGIN'],
      ['--docker-socket', 'CHUTEBOX_DOCKER_SOCKET'],
    ]) {
      expect(help.stdout).toMatch(new RegExp(`${flag} .*${env}`));
    }
    expect(help.stdout).toContain('--help');
  });

  it.each([
    [['serve', '--port', '70000'], {}, /--port/],
    [['serve', '--port', 'eighty'], {}, /--port/],
    [['serve'], { CHUTEBOX_PORT: '-1' }, /--port/],
    [['serve', '--bogus'], {}, /--bogus/],
    [['serve', 'extra'], {}, /extra/],
    [['launch'], {}, /unknown command/],
  ])('exits 2 with a clear message for chutebox %j (env %j)', (args, env, message) => {
    const result = run([...args, '--state-dir', path.join(tmp, 'never-used')], { ...SERVER_ENV, ...env });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).not.toContain('listening on');
  });

  it('takes its settings from CHUTEBOX_* variables, a flag winning over its variable', async () => {
    const stateDir = path.join(tmp, 'env-state');
    const server = await start(['serve', '--port', '0'], { ...SERVER_ENV, CHUTEBOX_HOST: '127.0.0.1', CHUTEBOX_PORT: '70000', CHUTEBOX_STATE_DIR: stateDir });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*$/);
    expect((await stat(path.join(stateDir, 'auth', 'jwt-secret'))).isFile()).toBe(true);
  });

  it('closes gracefully and exits 0 on SIGTERM', async () => {
    const server = await start(['serve', '--host', '127.0.0.1', '--port', '0', '--state-dir', path.join(tmp, 'term-state')]);
    await server.stop();
    expect(server.child.exitCode).toBe(0);
  });

  it('on SIGTERM during its start-up repair, waits for the repair, closes and exits 0', async () => {
    // A chute to repair, on an engine that answers each request only after a while, with an error: the repair waits for it.
    const stateDir = path.join(tmp, 'term-during-repair');
    await installChute(stateDir, 'slow', 'chutebox-test:sleeper', {});
    const socket = path.join(tmp, 'silent-engine.sock');
    const held: Socket[] = [];
    const engine = createServer((connection) => {
      held.push(connection);
      connection.once('data', () => {
        const answer = () =>
          connection.end('HTTP/1.1 500 Internal Server Error\r\ncontent-type: text/plain\r\ncontent-length: 4\r\nconnection: close\r\n\r\nslow');
        setTimeout(answer, 300);
      });
    });
    await new Promise<void>((resolve) => engine.listen(socket, resolve));
    try {
      const child = spawn(process.execPath, [CLI, 'serve', '--host', '127.0.0.1', '--port', '0', '--state-dir', stateDir, '--docker-socket', socket], {
        env: CLEAN_ENV,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
      let output = '';
      child.stdout!.on('data', (chunk: Buffer) => void (output += chunk.toString()));
      // The repair has begun once the engine is asked.
      while (held.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      process.kill(child.pid!, 'SIGTERM');
      expect(await exited).toEqual({ code: 0, signal: null });
      expect(output).toContain('"msg":"stopping"');
      expect(output).not.toContain('listening on');
    } finally {
      for (const connection of held) connection.destroy();
      await new Promise((resolve) => engine.close(resolve));
    }
  });

  it('chutebox --version prints the package version', async () => {
    const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(run(['--version']).stdout.trim()).toBe(pkg.version);
  });

  it('chutebox --help lists the commands', () => {
    const help = run(['--help']);
    expect(help.status).toBe(0);
    for (const command of ['serve', 'emulate', 'record', 'passwd']) expect(help.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
  });
});
