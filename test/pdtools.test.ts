/**
 * Runs every `pdtools node` command of ParaDrop's own CLI (its source at c910fd5) against `emulate`,
 * and against `serve` in a router namespace (the lab), as a user would, and counts which work: the
 * tables are printed, and each command that works today must keep working. pdtools' source is vendored under fixtures/pdtools (Apache-2.0, its LICENSE
 * kept) because neither these machines nor CI can reach GitHub; its dependencies are Debian's
 * packages, which .ci/run installs, since no Python package index is reachable either.
 */
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stopRecorded } from '../runtime/tools/supervisor.ts';
import { dockerUnavailableReason, findOnPath, startDockerd, type Dockerd } from './support/dockerd.ts';
import { recordedSnapd } from './support/fake-snapd.ts';
import { basicAuth, call } from './support/http-client.ts';
import { startHttpController } from './support/http-controller.ts';
import { apiIn, createNamespacePair, joinAsStation, listenIn, networkUnavailableReason, waitUntil, type Daemon, type NamespacePair } from './support/netns.ts';
import { type PdtoolsRun, pdtoolsNodeCommands, runPdtools, skipWithoutPdtools } from './support/pdtools.ts';
import { pulseaudioUnavailableReason, startPulseaudio, type RunningPulseaudio } from './support/pulseaudio.ts';
import { CLEAN_ENV, CLI, serveArgs, startChutebox, useChutebox, type Started } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';

const pdtools = skipWithoutPdtools('test/pdtools.test.ts');

/** The commands that work against emulate and against serve in the lab today: a regression in any of them fails the test. */
const WORKING = [
  'connect-snap-interfaces',
  'create-user',
  'describe-audio',
  'describe-chute',
  'describe-chute-cache',
  'describe-chute-configuration',
  'describe-chute-network-client',
  'describe-pdconf',
  'describe-provision',
  'describe-settings',
  'edit-chute-configuration',
  'edit-chute-variables',
  'edit-configuration',
  'export-configuration',
  'generate-configuration',
  'help',
  'import-configuration',
  'import-ssh-key',
  'install-chute',
  'list-audio-modules',
  'list-audio-sinks',
  'list-audio-sources',
  'list-changes',
  'list-chute-network-clients',
  'list-chute-networks',
  'list-chutes',
  'list-devices',
  'list-snap-interfaces',
  'list-ssh-keys',
  'load-audio-module',
  'login',
  'logout',
  'provision',
  'reboot',
  'remove-chute',
  'remove-chute-network-client',
  'restart-chute',
  'set-configuration',
  'set-password',
  'set-sink-volume',
  'set-source-volume',
  'shutdown',
  'start-chute',
  'stop-chute',
  'trigger-pdconf',
  'update-chute',
  'watch-change-logs',
  'watch-chute-logs',
  'watch-logs',
];

/** Not HTTP: ssh to the device, then `docker exec`. */
const NOT_RUN = ['open-chute-shell'];

/** The emulator's login (`paradrop`, empty password), ParaDrop's default one, which pdtools tries by itself. */
const LOGIN = basicAuth('paradrop', '');

/**
 * How the test runs one command: its arguments after the name, what it types, whether it streams
 * until stopped, what happens on the device while it streams, and what it must print then.
 */
interface Case {
  args?: string[];
  stdin?: string;
  streams?: boolean;
  whenOpen?: () => Promise<unknown>;
  prints?: RegExp[];
  /** Runs on a terminal with pdtools' password prompt on, `stdin` typed at its prompts. */
  terminal?: boolean;
  /** A command run next that only a token pdtools saved can log in (no default login, no prompt): it must work too. */
  savedTokenWorksFor?: string[];
}

/**
 * The requests whose last answer was a refusal. pdtools tries its token sources in turn, each after
 * a 401 to the one before, so only the last answer to a request tells.
 */
function refusals(run: PdtoolsRun): string[] {
  const last = new Map(run.answers.map((answer) => [answer.request, answer.status]));
  return [...last].filter(([, status]) => status === 0 || status >= 400).map(([request, status]) => `${status || 'error'} ${request}`);
}

/** Whether a run worked: it ended well (or streamed something until stopped), printed what it must, and no request was refused in the end. */
function worked(run: PdtoolsRun, { streams = false, prints = [] }: Case): boolean {
  const ended = streams ? run.stdout.trim() !== '' : run.code === 0;
  return ended && prints.every((line) => line.test(run.stdout)) && refusals(run).length === 0;
}

/**
 * A device pdtools runs against: how the test asks its API, the network namespace pdtools runs in to
 * reach it, and the controller pdtools provisions it with.
 */
interface Device {
  url: string;
  api<T = unknown>(method: string, endpoint: string, json?: unknown): Promise<{ status: number; body: T }>;
  netns?: string;
  controller: string;
}

/** Asks a device's API and answers the body of its 200; fails the test otherwise. */
async function ok<T>(device: Device, method: string, endpoint: string, json?: unknown): Promise<T> {
  const answer = await device.api<T>(method, endpoint, json);
  expect(answer.status, `${method} ${endpoint}: ${JSON.stringify(answer.body)}`).toBe(200);
  return answer.body;
}

/** What happens while `watch-logs` watches: a chute restarted, whose change's end it must print. */
async function restartWhileWatched(device: Device): Promise<void> {
  await ok(device, 'POST', '/api/v1/chutes/hello-world/restart');
}

/** The credentials pdtools provisions the device with (`provision ID KEY`). */
const ROUTER = { id: 'router-id', key: 'router-key' };

/** What pdtools prints of a provisioning the controller accepted, as ParaDrop's daemon answers it. */
const PROVISIONED = [/^provisioned: true$/m, /^httpConnected: true$/m];

/** The last line pdtools prints of a change that succeeded (`<time>: succeeded`). */
const CHANGE_SUCCEEDED = /: succeeded\n$/;

/** The line of the restart's end in the daemon log. */
const RESTARTED = /"msg":"change \d+ \(restart hello-world\) succeeded"/;

/** The account and password `set-password` gives the device, and `login` logs in with at pdtools' prompt. */
const ACCOUNT = { username: 'paradrop', password: 'secret-pass' };

/**
 * The commands in the order they run against a device with a chute `hello-world` whose network `wifi`
 * has a station: a chute installed before it is updated and removed, the provisioning before it is
 * described, the power, then the password, a login with it and a logout last.
 * `watchLogs` is what happens while `watch-logs` watches, and what it must print.
 */
async function cases(device: Device, dir: string, chute: string, watchLogs: Case): Promise<Map<string, Case>> {
  await writeFile(path.join(chute, 'paradrop.yaml'), 'name: pdtools-chute\nversion: 1\nservices:\n  main:\n    type: normal\n    source: .\n');
  await writeFile(path.join(chute, 'Dockerfile'), 'FROM busybox\nCMD ["busybox", "httpd", "-f"]\n');
  await writeFile(path.join(dir, 'hostconfig.json'), JSON.stringify(await ok(device, 'GET', '/api/v1/config/hostconfig')));
  await writeFile(path.join(dir, 'key.pub'), 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGqGhv6vVvFZ3QdpvNUGGXBgdqLVBaoGkYs9ABmT4M2Q pdtools@test\n');
  await writeFile(path.join(dir, 'editor'), '#!/bin/sh\nprintf "PDTOOLS_EDITED: \\"yes\\"\\n" >> "$1"\n', { mode: 0o755 });
  const stations = await ok<{ mac_addr: string }[]>(device, 'GET', '/api/v1/chutes/hello-world/networks/wifi/stations');
  const mac = stations[0]!.mac_addr;
  const change = await ok<{ change_id: number }>(device, 'POST', '/api/v1/chutes/hello-world/restart');
  return new Map<string, Case>([
    ['help', {}],
    ['list-chutes', {}],
    ['describe-chute', { args: ['hello-world'] }],
    ['describe-chute-cache', { args: ['hello-world'] }],
    ['describe-chute-configuration', { args: ['hello-world'] }],
    ['list-chute-networks', { args: ['hello-world'] }],
    ['list-chute-network-clients', { args: ['hello-world', 'wifi'] }],
    ['describe-chute-network-client', { args: ['hello-world', 'wifi', mac] }],
    ['remove-chute-network-client', { args: ['hello-world', 'wifi', mac] }],
    ['list-devices', {}],
    ['describe-pdconf', {}],
    ['trigger-pdconf', {}],
    ['describe-settings', {}],
    ['export-configuration', { args: ['--format', 'yaml'] }],
    ['generate-configuration', { args: ['--format', 'yaml'] }],
    ['import-configuration', { args: [path.join(dir, 'hostconfig.json')] }],
    ['set-configuration', { args: ['system.hostname', 'pdtools-test'] }],
    ['edit-configuration', {}],
    ['edit-chute-configuration', { args: ['hello-world'] }],
    ['edit-chute-variables', { args: ['hello-world'] }],
    ['list-ssh-keys', {}],
    ['import-ssh-key', { args: [path.join(dir, 'key.pub')] }],
    // pdtools ends well whatever the change's end: the change's last message must say it succeeded.
    ['install-chute', { args: ['--directory', chute], prints: [CHANGE_SUCCEEDED] }],
    ['update-chute', { args: ['--directory', chute], prints: [CHANGE_SUCCEEDED] }],
    ['list-changes', {}],
    ['watch-change-logs', { args: [String(change.change_id)], streams: true }],
    ['watch-chute-logs', { args: ['hello-world'], streams: true }],
    ['watch-logs', { ...watchLogs, streams: true }],
    ['stop-chute', { args: ['hello-world'] }],
    ['start-chute', { args: ['hello-world'] }],
    ['restart-chute', { args: ['hello-world'] }],
    ['remove-chute', { args: ['pdtools-chute'] }],
    ['describe-audio', {}],
    ['list-audio-modules', {}],
    ['list-audio-sinks', {}],
    ['list-audio-sources', {}],
    ['load-audio-module', { args: ['module-null-sink'] }],
    ['set-sink-volume', { args: ['null', '0.5'] }],
    ['set-source-volume', { args: ['null.monitor', '0.5'] }],
    ['list-snap-interfaces', {}],
    ['connect-snap-interfaces', {}],
    ['create-user', { args: ['user@example.com'] }],
    // What ParaDrop's daemon answers: provisioned, and the controller reached.
    ['provision', { args: [ROUTER.id, ROUTER.key, '--controller', device.controller, '--wamp', 'ws://127.0.0.1:9/ws'], prints: PROVISIONED }],
    ['describe-provision', { prints: [...PROVISIONED, new RegExp(`^routerId: ${ROUTER.id}$`, 'm')] }],
    ['reboot', {}],
    ['shutdown', {}],
    // Every command before reaches the device without a password (serve on its loopback, the emulator
    // with ParaDrop's default login); from here on it takes the password set.
    ['set-password', { stdin: `${ACCOUNT.username}\n${ACCOUNT.password}\n${ACCOUNT.password}\n` }],
    // As a user at a terminal: pdtools tries the default login, refused now, then asks.
    [
      'login',
      { terminal: true, stdin: `${ACCOUNT.username}\n${ACCOUNT.password}\n`, prints: [/^Login successful\.\r?$/m], savedTokenWorksFor: ['list-chutes'] },
    ],
    ['logout', { prints: [/^Removed 1 token\(s\)\.$/m] }],
  ]);
}

/** Why a run did not work (its first refusal, a line it did not print, its last error), or why the command after it did not. */
function whyNot(run: PdtoolsRun, how: Case, next?: PdtoolsRun): string {
  if (next !== undefined && worked(run, how)) return `then with the token saved: ${whyNot(next, {})}`;
  const missing = how.prints?.find((line) => !line.test(run.stdout));
  return (
    refusals(run)[0] ??
    (missing && `printed no line matching ${missing}`) ??
    (run.stderr.trim().split('\n').at(-1) || `exit ${run.code ?? 'killed, nothing printed'}`)
  );
}

/**
 * Runs every command of `planned` against `device` (named `name` in what it prints), prints the table
 * of which work and why the others do not, and answers the commands that work.
 */
async function runEvery(name: string, device: Device, planned: Map<string, Case>, home: string, editor: string): Promise<string[]> {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, EDITOR: editor, LANG: 'C.UTF-8' };
  const target = ['node', '--target', new URL(device.url).host, '--without-auth-prompt', '--without-auth-cloud'];
  const commands = pdtoolsNodeCommands().filter((command) => !NOT_RUN.includes(command));
  expect(
    commands.filter((command) => !planned.has(command)),
    'commands of pdtools without a case here',
  ).toEqual([]);
  const table: string[] = [];
  const working: string[] = [];
  for (const [command, how] of planned) {
    const { args = [], stdin, streams = false, whenOpen, terminal = false, savedTokenWorksFor } = how;
    const options = { env, netns: device.netns, timeoutMs: streams ? 8_000 : 30_000 };
    const prompt = terminal ? ['--with-auth-prompt'] : [];
    const run = await runPdtools([...target, ...prompt, command, ...args], { ...options, stdin, whenOpen, terminal });
    const next = savedTokenWorksFor && (await runPdtools([...target, '--without-auth-default', ...savedTokenWorksFor], options));
    const ok = worked(run, how) && (next === undefined || worked(next, {}));
    if (ok) working.push(command);
    table.push(`| ${command} | ${ok ? 'works' : 'fails'} | ${ok ? '' : whyNot(run, how, next)} |`);
  }
  console.log(
    `pdtools node against ${name}: ${working.length} of ${planned.size} commands work\n| command | verdict | why not |\n|---|---|---|\n${table.join('\n')}`,
  );
  return working;
}

describe.skipIf(pdtools.skipped)(`every pdtools node command against emulate${pdtools.note}`, () => {
  const temp = useTempDir('chutebox-pdtools-');
  const start = useChutebox();

  it('keeps working for every command that works today, and prints the count', { timeout: 240_000 }, async () => {
    const server = await start(['emulate', '--port', '0']);
    const device: Device = {
      url: server.url,
      api: (method, endpoint, json) => call(server.url, method, endpoint, { headers: LOGIN, json }),
      // The emulator's built-in fake controller answers whatever controller URL it is given.
      controller: 'http://127.0.0.1:9',
    };
    const planned = await cases(device, temp.path(), await temp.folder('chute'), {
      // A change, and a station joining as the emulated clock moves: the daemon log's lines of both.
      whenOpen: async () => {
        await restartWhileWatched(device);
        await ok(device, 'PATCH', '/_chutebox/clock', { advanceMs: 3_600_000 });
      },
      prints: [RESTARTED, /"msg":"station [0-9a-f:]{17} connected \(/],
    });
    const working = await runEvery('emulate', device, planned, await temp.folder('home'), path.join(temp.path(), 'editor'));
    expect(
      WORKING.filter((command) => !working.includes(command)),
      'commands that stopped working',
    ).toEqual([]);
  });
});

/** What the lab (a router namespace with its own engine, a station, PulseAudio) needs, or null when it can run here. */
const labUnavailable =
  networkUnavailableReason() ??
  dockerUnavailableReason() ??
  pulseaudioUnavailableReason() ??
  (['nft', 'nsenter'].some((program) => findOnPath(program) === null) ? 'nft or nsenter is not on PATH (apt-get install -y nftables util-linux)' : null);
const labRequired = ['CHUTEBOX_REQUIRE_PDTOOLS', 'CHUTEBOX_REQUIRE_NETWORK', 'CHUTEBOX_REQUIRE_DOCKER', 'CHUTEBOX_REQUIRE_PULSEAUDIO'].some(
  (name) => process.env[name],
);
const labSkipped = pdtools.skipped || (labUnavailable !== null && !labRequired);
if (labSkipped && !pdtools.skipped)
  console.warn(`test/pdtools.test.ts: serve in the lab skipped: ${labUnavailable}; set CHUTEBOX_REQUIRE_PDTOOLS=1 to make this a failure`);

/** The key of the lab chute's access point. */
const KEY = 'pdtools-passphrase';

describe.skipIf(labSkipped)(
  `every pdtools node command against serve in a router namespace${labSkipped ? ` (skipped: ${pdtools.skipped ? pdtools.note : labUnavailable})` : ''}`,
  () => {
    const temp = useTempDir('chutebox-pdtools-lab-');
    let namespaces: NamespacePair | undefined;
    let engine: Dockerd | undefined;
    let pulse: RunningPulseaudio | undefined;
    let snapd: Awaited<ReturnType<typeof recordedSnapd>> | undefined;
    let server: Started | undefined;
    let cloud: Awaited<ReturnType<typeof startHttpController>> | undefined;
    let stateDir = '';
    const daemons: Daemon[] = [];

    afterAll(async () => {
      try {
        await server?.stop();
        await cloud?.close();
        // hostapd and dnsmasq outlive serve by design (a restart adopts them): stop them by their pid files.
        const pids = path.join(stateDir, 'networks', 'pids');
        for (const file of stateDir === '' ? [] : await readdir(pids).catch(() => [] as string[]))
          if (file.endsWith('.pid')) await stopRecorded(path.join(pids, file), 1000);
        await Promise.all(daemons.map((daemon) => daemon.stop()));
      } finally {
        await engine?.stop();
        namespaces?.remove();
        await pulse?.stop();
        await snapd?.close();
      }
    }, 90_000);

    it('runs every command as on a device, prints the count, and keeps working for those that work today', { timeout: 300_000 }, async () => {
      if (labUnavailable !== null) throw new Error(`no lab here: ${labUnavailable}`);
      const dir = temp.path();
      stateDir = path.join(dir, 'state');
      namespaces = createNamespacePair('chutebox-pdt');
      const router = namespaces.a;
      const link = namespaces.link(`cp${process.pid.toString(36)}`);
      engine = await startDockerd({ netns: router });
      const web = await engine.importBusybox('chutebox-pdtools', 'web', {
        cmd: [
          'sh',
          '-c',
          'echo "hello-world serves its page on port 8000"; busybox mkdir -p /www; echo "hello from pdtools" > /www/index.html; trap "exit 143" TERM; busybox httpd -f -p 8000 -h /www & wait',
        ],
      });
      // What pdtools' chute builds FROM: no registry here.
      await engine.importBusybox('busybox', 'latest');
      pulse = await startPulseaudio();
      snapd = await recordedSnapd(dir);
      // The controller pdtools provisions serve with, on the router's loopback, where serve reaches it.
      cloud = await startHttpController({ apitoken: ROUTER.key, listening: await listenIn(router) });
      // The accounts whose SSH keys serve edits: paradrop's home in the test's folder.
      const home = await temp.folder('paradrop');
      await writeFile(path.join(dir, 'passwd'), `paradrop:x:${process.getuid?.() ?? 0}:${process.getgid?.() ?? 0}:ParaDrop:${home}:/bin/sh\n`);
      const extra = [
        '--snapd-socket',
        snapd.socket,
        '--passwd-file',
        path.join(dir, 'passwd'),
        '--reboot-command',
        '/bin/true',
        '--shutdown-command',
        '/bin/true',
      ];
      server = await startChutebox(
        ['netns', 'exec', router, process.execPath, CLI, ...serveArgs(stateDir, engine.socket, extra)],
        { ...CLEAN_ENV, CHUTEBOX_LAB_LINK: link.a, CHUTEBOX_CONTAINER_NETWORK: 'none', PULSE_SERVER: pulse.server },
        { command: 'ip' },
      );
      const url = server.url;
      const device: Device = {
        url,
        netns: router,
        api: (method, endpoint, json) => apiIn(router, `${url}${endpoint}`, method, json),
        controller: cloud.controller.url,
      };
      const wifi = { type: 'wifi', intfName: 'wlan0', ssid: 'hello-world', key: KEY, dhcp: { start: 100, limit: 10, lease: '1h' } };
      const installed = await ok<{ change_id: number }>(device, 'POST', '/api/v1/chutes', {
        name: 'hello-world',
        image: web,
        config: { web: { port: 8000 }, net: { wifi } },
      });
      await waitUntil(
        'hello-world installed',
        async () => {
          const change = await ok<{ state: string }>(device, 'GET', `/api/v1/changes/${installed.change_id}`);
          if (change.state === 'failed') throw new Error(`installing hello-world failed: ${JSON.stringify(change)}`);
          return change.state === 'succeeded';
        },
        60_000,
      );
      daemons.push(await joinAsStation(namespaces.b, link.b, KEY, await temp.folder('station')));

      const planned = await cases(device, dir, await temp.folder('chute'), { whenOpen: () => restartWhileWatched(device), prints: [RESTARTED] });
      const working = await runEvery('serve', device, planned, await temp.folder('home'), path.join(dir, 'editor'));
      expect(
        WORKING.filter((command) => !working.includes(command)),
        'commands that stopped working',
      ).toEqual([]);
      const check = cloud.controller.requests.find((request) => request.path === `/api/routers/${ROUTER.id}`);
      expect(check?.authorization, 'how serve checked the credentials with the controller').toBe(`Bearer ${ROUTER.key}`);
    });
  },
);
