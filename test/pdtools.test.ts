/**
 * Runs every `pdtools node` command of ParaDrop's own CLI (its source at c910fd5) against `emulate`,
 * as a user would, and counts which work: the table is printed, and each command that works today
 * must keep working. pdtools' source is vendored under fixtures/pdtools (Apache-2.0, its LICENSE
 * kept) because neither these machines nor CI can reach GitHub; its dependencies are Debian's
 * packages, which .ci/run installs, since no Python package index is reachable either.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { basicAuth, call } from './support/http-client.ts';
import { useChutebox } from './support/spawn.ts';
import { useTempDir } from './support/temp-dir.ts';
import { type PdtoolsRun, pdtoolsNodeCommands, runPdtools, skipWithoutPdtools } from './support/pdtools.ts';

const pdtools = skipWithoutPdtools('test/pdtools.test.ts');

/** The commands that work against the emulator today: a regression in any of them fails the test. */
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

describe.skipIf(pdtools.skipped)(`every pdtools node command against emulate${pdtools.note}`, () => {
  const temp = useTempDir('chutebox-pdtools-');
  const start = useChutebox();

  /** The commands in the order they run: a chute installed before it is updated and removed, the power last. */
  async function cases(url: string): Promise<Map<string, Case>> {
    const dir = temp.path();
    const chute = await temp.folder('chute');
    await writeFile(path.join(chute, 'paradrop.yaml'), 'name: pdtools-chute\nversion: 1\nservices:\n  main:\n    type: normal\n    source: .\n');
    await writeFile(path.join(chute, 'Dockerfile'), 'FROM busybox\nCMD ["httpd", "-f"]\n');
    const hostconfig = await (await fetch(`${url}/api/v1/config/hostconfig`, { headers: LOGIN })).text();
    await writeFile(path.join(dir, 'hostconfig.json'), hostconfig);
    await writeFile(path.join(dir, 'key.pub'), 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGqGhv6vVvFZ3QdpvNUGGXBgdqLVBaoGkYs9ABmT4M2Q pdtools@test\n');
    await writeFile(path.join(dir, 'editor'), '#!/bin/sh\nprintf "PDTOOLS_EDITED: \\"yes\\"\\n" >> "$1"\n', { mode: 0o755 });
    const stations = (await (await fetch(`${url}/api/v1/chutes/hello-world/networks/wifi/stations`, { headers: LOGIN })).json()) as { mac_addr: string }[];
    const mac = stations[0]!.mac_addr;
    const change = (await (await fetch(`${url}/api/v1/chutes/hello-world/restart`, { method: 'POST', headers: LOGIN })).json()) as { change_id: number };
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
      ['describe-provision', {}],
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
      ['install-chute', { args: ['--directory', chute] }],
      ['update-chute', { args: ['--directory', chute] }],
      ['list-changes', {}],
      ['watch-change-logs', { args: [String(change.change_id)], streams: true }],
      ['watch-chute-logs', { args: ['hello-world'], streams: true }],
      [
        'watch-logs',
        {
          streams: true,
          // A change and a station joining as the emulated clock moves: the daemon log's lines of both.
          whenOpen: async () => {
            const restart = await call(url, 'POST', '/api/v1/chutes/hello-world/restart', { headers: LOGIN });
            const clock = await call(url, 'PATCH', '/_chutebox/clock', { headers: LOGIN, json: { advanceMs: 3_600_000 } });
            expect([restart.status, clock.status], JSON.stringify([restart.body, clock.body])).toEqual([200, 200]);
          },
          prints: [/"msg":"change \d+ \(restart hello-world\) succeeded"/, /"msg":"station [0-9a-f:]{17} connected \(/],
        },
      ],
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
      ['provision', { args: ['router-id', 'router-key', '--controller', 'http://127.0.0.1:9', '--wamp', 'ws://127.0.0.1:9/ws'] }],
      ['login', { stdin: 'paradrop\n\n' }],
      ['logout', {}],
      ['reboot', {}],
      ['shutdown', {}],
      // Last: the login of every command before it is the emulator's default one.
      ['set-password', { stdin: 'paradrop\nsecret-pass\nsecret-pass\n' }],
    ]);
  }

  it('keeps working for every command that works today, and prints the count', { timeout: 240_000 }, async () => {
    const server = await start(['emulate', '--port', '0']);
    const home = await temp.folder('home');
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, EDITOR: path.join(temp.path(), 'editor'), LANG: 'C.UTF-8' };
    const target = ['node', '--target', new URL(server.url).host, '--without-auth-prompt', '--without-auth-cloud'];
    const planned = await cases(server.url);
    const commands = pdtoolsNodeCommands().filter((command) => !NOT_RUN.includes(command));
    expect(
      commands.filter((command) => !planned.has(command)),
      'commands of pdtools without a case here',
    ).toEqual([]);

    const table: string[] = [];
    const working: string[] = [];
    for (const [command, how] of planned) {
      const { args = [], stdin, streams = false, whenOpen } = how;
      const run = await runPdtools([...target, command, ...args], { env, stdin, whenOpen, timeoutMs: streams ? 8_000 : 30_000 });
      const ok = worked(run, how);
      if (ok) working.push(command);
      const missing = how.prints?.find((line) => !line.test(run.stdout));
      const why =
        refusals(run)[0] ??
        (missing && `printed no line matching ${missing}`) ??
        (run.stderr.trim().split('\n').at(-1) || `exit ${run.code ?? 'killed, nothing printed'}`);
      table.push(`| ${command} | ${ok ? 'works' : 'fails'} | ${ok ? '' : why} |`);
    }
    console.log(
      `pdtools node against emulate: ${working.length} of ${planned.size} commands work\n| command | verdict | why not |\n|---|---|---|\n${table.join('\n')}`,
    );
    expect(
      WORKING.filter((command) => !working.includes(command)),
      'commands that stopped working',
    ).toEqual([]);
  });
});
