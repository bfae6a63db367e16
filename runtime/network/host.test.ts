import { execFile } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { NetworkTarget } from '../../functions/core/device/index.ts';
import { useTempDir } from '../../test/support/temp-dir.ts';
import { problemOf, writeScript } from '../../test/support/tool-scripts.ts';
import { createHostDevice } from '../host-device.ts';
import { sharedRuns } from '../tools/shared-run.ts';
import { hostNetwork, type SharedToolRuns } from './host.ts';
import { DEFAULT_NETWORK_TOOLS, type NetworkTools } from './tools.ts';

const temp = useTempDir('chutebox-network-host-');
const execFileAsync = promisify(execFile);

const TARGET: NetworkTarget = { chute: 'hello', network: 'wifi', hostInterface: 'vwlan0', hostapdControl: '/run/hostapd-test/vwlan0', leaseFile: null };

/** Writes an executable shell script into the temp folder and answers its path. */
const script = (name: string, body: string) => writeScript(temp.path(), name, body);

/** Tools whose iw and hostapd_cli are the given scripts. */
const tools = (scripts: Partial<NetworkTools>): NetworkTools => ({
  ...DEFAULT_NETWORK_TOOLS,
  iw: '/nonexistent/iw',
  hostapdCli: '/nonexistent/hostapd_cli',
  timeoutMs: 5000,
  ...scripts,
});

/** A fake iw that knows station 02:00:00:00:00:01 on vwlan0, and prints its arguments for a dump. */
const FAKE_IW = `
case "$*" in
  "dev vwlan0 station dump") printf 'args:'; printf ' <%s>' "$@"; echo ;;
  "dev vwlan0 station get 02:00:00:00:00:01") echo "Station 02:00:00:00:00:01 (on vwlan0)" ;;
  "dev vwlan0 station del 02:00:00:00:00:01") ;;
  "dev vwlan0 station "*) echo "command failed: No such file or directory (-2)" >&2; exit 254 ;;
  "dev gone0 station "*) echo "command failed: No such device (-19)" >&2; exit 237 ;;
  *) echo "command failed: Operation not supported (-95)" >&2; exit 161 ;;
esac`;

describe('hostNetwork stations (iw)', () => {
  it('runs iw dev <hostInterface> station dump with an argument array and answers its output', async () => {
    const host = hostNetwork(TARGET, tools({ iw: await script('iw', FAKE_IW) }));
    expect(await host.stationDump()).toBe('args: <dev> <vwlan0> <station> <dump>\n');
  });

  it('answers a station, null for one iw does not know, and whether station del found it', async () => {
    const host = hostNetwork(TARGET, tools({ iw: await script('iw', FAKE_IW) }));
    expect(await host.stationGet('02:00:00:00:00:01')).toBe('Station 02:00:00:00:00:01 (on vwlan0)\n');
    expect(await host.stationGet('02:00:00:00:00:09')).toBeNull();
    expect(await host.stationDel('02:00:00:00:00:01')).toBe(true);
    expect(await host.stationDel('02:00:00:00:00:09')).toBe(false);
  });

  it('rejects a malformed MAC with a 400 before running iw', async () => {
    const host = hostNetwork(TARGET, tools({}));
    expect(await problemOf(host.stationGet('--help'))).toMatchObject({ status: 400 });
  });

  it('answers 503 when the host interface is gone, 502 with iw message for other failures', async () => {
    const iw = await script('iw', FAKE_IW);
    expect(await problemOf(hostNetwork({ ...TARGET, hostInterface: 'gone0' }, tools({ iw })).stationDump())).toMatchObject({
      status: 503,
      message: expect.stringContaining('host interface gone0 does not exist'),
    });
    expect(await problemOf(hostNetwork({ ...TARGET, hostInterface: 'wired0' }, tools({ iw })).stationDump())).toMatchObject({
      status: 502,
      message: expect.stringContaining('Operation not supported (-95)'),
    });
  });

  it('answers 503 when the kernel has no nl80211 (iw: "nl80211 not found.")', async () => {
    const iw = await script('iw-no-wifi', 'echo "nl80211 not found." >&2; exit 1');
    expect(await problemOf(hostNetwork(TARGET, tools({ iw })).stationDump())).toMatchObject({
      status: 503,
      message: expect.stringContaining('nl80211 not found'),
    });
  });

  it('answers 503 naming iw and --iw when iw is missing, and naming hostInterface when none is recorded', async () => {
    expect(await problemOf(hostNetwork(TARGET, tools({})).stationDump())).toMatchObject({
      status: 503,
      message: expect.stringMatching(/iw is not installed at \/nonexistent\/iw.*--iw/),
    });
    expect(await problemOf(hostNetwork({ ...TARGET, hostInterface: null }, tools({})).stationDump())).toMatchObject({
      status: 503,
      message: 'network wifi of chute hello has no hostInterface recorded (chute cache networks.wifi.hostInterface)',
    });
  });
});

describe('hostNetwork leases', () => {
  it('answers the lease file verbatim, null when it does not exist yet, 503 when none is recorded', async () => {
    const leaseFile = path.join(temp.path(), 'dnsmasq.leases');
    await writeFile(leaseFile, '0 02:00:00:00:00:01 10.0.0.2 laptop *\n');
    expect(await hostNetwork({ ...TARGET, leaseFile }).leases()).toBe('0 02:00:00:00:00:01 10.0.0.2 laptop *\n');
    expect(await hostNetwork({ ...TARGET, leaseFile: path.join(temp.path(), 'none.leases') }).leases()).toBeNull();
    expect(await problemOf(hostNetwork(TARGET).leases())).toMatchObject({ status: 503, message: expect.stringContaining('no leaseFile recorded') });
  });

  it('answers 503 when the lease file cannot be read', async () => {
    expect(await problemOf(hostNetwork({ ...TARGET, leaseFile: temp.path() }).leases())).toMatchObject({
      status: 503,
      message: expect.stringContaining('EISDIR'),
    });
  });
});

describe('hostNetwork hostapd (hostapd_cli)', () => {
  it('runs hostapd_cli -p <socket dir> -i <socket name> -- raw <command words> and answers the reply verbatim', async () => {
    const hostapdCli = await script('hostapd_cli', `printf '<%s>' "$@"`);
    const host = hostNetwork(TARGET, tools({ hostapdCli }));
    expect(await host.hostapd(['SET', 'ssid', '-v my lab'])).toBe('<-p></run/hostapd-test><-i><vwlan0><--><raw><SET><ssid><-v my lab>');
  });

  it('refuses a command word with a line break before running hostapd_cli', async () => {
    const host = hostNetwork(TARGET, tools({}));
    expect(await problemOf(host.hostapd(['SET', 'ssid', 'lab\nRELOAD']))).toMatchObject({ status: 400 });
  });

  it.each([
    ['No such file or directory', 503, 'hostapd control socket /run/hostapd-test/vwlan0 does not exist'],
    ['Connection refused', 503, 'hostapd control socket /run/hostapd-test/vwlan0 does not answer'],
    ['Permission denied', 503, 'hostapd control socket /run/hostapd-test/vwlan0 cannot be opened: Permission denied'],
  ])('answers %s of the control socket with a %i naming the socket', async (reason, status, detail) => {
    const hostapdCli = await script(`hostapd_cli-${status}-${reason.length}`, `echo "Failed to connect to hostapd - wpa_ctrl_open: ${reason}" >&2; exit 255`);
    expect(await problemOf(hostNetwork(TARGET, tools({ hostapdCli })).hostapd(['STATUS']))).toMatchObject({ status, message: expect.stringContaining(detail) });
  });

  it('answers 504 naming the socket when hostapd_cli reports a timeout or runs past the tool timeout', async () => {
    const reported = await script('hostapd_cli-timed-out', `echo "'STATUS' command timed out."`);
    expect(await problemOf(hostNetwork(TARGET, tools({ hostapdCli: reported })).hostapd(['STATUS']))).toMatchObject({
      status: 504,
      message: expect.stringContaining('/run/hostapd-test/vwlan0'),
    });
    const slow = await script('hostapd_cli-slow', 'exec sleep 30');
    expect(await problemOf(hostNetwork(TARGET, tools({ hostapdCli: slow, timeoutMs: 200 })).hostapd(['STATUS']))).toMatchObject({
      status: 504,
      message: 'hostapd did not answer on its control socket /run/hostapd-test/vwlan0 within 0.2 s',
    });
  });

  it('answers 503 naming hostapd_cli and --hostapd-cli when it is missing, and naming hostapdControl when none is recorded', async () => {
    expect(await problemOf(hostNetwork(TARGET, tools({})).hostapd(['STATUS']))).toMatchObject({
      status: 503,
      message: expect.stringMatching(/hostapd_cli is not installed.*--hostapd-cli/),
    });
    expect(await problemOf(hostNetwork({ ...TARGET, hostapdControl: null }, tools({})).hostapd(['STATUS']))).toMatchObject({
      status: 503,
      message: expect.stringContaining('no hostapdControl recorded'),
    });
  });
});

describe('hostNetwork hostapdStations (hostapd_cli all_sta)', () => {
  it('runs hostapd_cli -p <socket dir> -i <socket name> -- all_sta and answers what it printed verbatim', async () => {
    const hostapdCli = await script('hostapd_cli-all-sta', `printf '<%s>' "$@"; printf '\\n02:00:00:00:00:01\\nflags=[AUTHORIZED]\\n'`);
    expect(await hostNetwork(TARGET, tools({ hostapdCli })).hostapdStations()).toBe(
      '<-p></run/hostapd-test><-i><vwlan0><--><all_sta>\n02:00:00:00:00:01\nflags=[AUTHORIZED]\n',
    );
  });

  it('answers 504 when hostapd timed out on a station after printing the ones before, 503 without a control socket', async () => {
    const timedOut = await script(
      'hostapd_cli-sta-timed-out',
      `printf '02:00:00:00:00:01\\nflags=\\n'; echo "'STA-NEXT 02:00:00:00:00:01' command timed out."`,
    );
    expect(await problemOf(hostNetwork(TARGET, tools({ hostapdCli: timedOut })).hostapdStations())).toMatchObject({
      status: 504,
      message: expect.stringContaining('/run/hostapd-test/vwlan0'),
    });
    const missing = await script('hostapd_cli-no-socket', `echo "Failed to connect to hostapd - wpa_ctrl_open: No such file or directory" >&2; exit 255`);
    expect(await problemOf(hostNetwork(TARGET, tools({ hostapdCli: missing })).hostapdStations())).toMatchObject({
      status: 503,
      message: expect.stringContaining('hostapd control socket /run/hostapd-test/vwlan0 does not exist'),
    });
    expect(await problemOf(hostNetwork({ ...TARGET, hostapdControl: null }, tools({})).hostapdStations())).toMatchObject({
      status: 503,
      message: expect.stringContaining('no hostapdControl recorded'),
    });
  });
});

describe('hostNetwork shared reads', () => {
  /**
   * A stand-in tool in a folder of its own that appends its arguments to `calls` there, takes 0.2 s,
   * then prints `output`: each line of `runs()` is one run.
   */
  async function countingTool(name: string, output: string) {
    const dir = await temp.folder(name);
    const tool = await writeScript(dir, name, `echo "$*" >> "${dir}/calls"; sleep 0.2; echo '${output}'`);
    const runs = async () => (await readFile(path.join(dir, 'calls'), 'utf8').catch(() => '')).split('\n').filter(Boolean);
    return { path: tool, runs };
  }

  /** The network of each request, as the host device makes them: a new hostNetwork per call, one map of runs. */
  function perRequest(scripts: Partial<NetworkTools>): () => ReturnType<typeof hostNetwork> {
    const runs: SharedToolRuns = sharedRuns();
    return () => hostNetwork(TARGET, tools(scripts), runs);
  }

  /** Makes `count` calls at once and answers their answers. */
  const concurrently = <T>(count: number, call: () => Promise<T>) => Promise.all(Array.from({ length: count }, call));

  it('runs iw station dump once for 10 concurrent requests and answers each with the dump', async () => {
    const iw = await countingTool('iw-dump', 'Station 02:00:00:00:00:01 (on vwlan0)');
    const network = perRequest({ iw: iw.path });
    expect(await concurrently(10, () => network().stationDump())).toEqual(Array(10).fill('Station 02:00:00:00:00:01 (on vwlan0)\n'));
    expect(await iw.runs()).toEqual(['dev vwlan0 station dump']);
  });

  it('runs iw again for a station dump asked for after the shared run ended', async () => {
    const iw = await countingTool('iw-again', 'Station 02:00:00:00:00:01 (on vwlan0)');
    const network = perRequest({ iw: iw.path });
    await concurrently(3, () => network().stationDump());
    await network().stationDump();
    expect(await iw.runs()).toEqual(['dev vwlan0 station dump', 'dev vwlan0 station dump']);
  });

  it('runs iw station get once for concurrent requests of one station, once per station', async () => {
    const iw = await countingTool('iw-get', 'Station');
    const network = perRequest({ iw: iw.path });
    await Promise.all([concurrently(5, () => network().stationGet('02:00:00:00:00:01')), concurrently(5, () => network().stationGet('02:00:00:00:00:02'))]);
    expect((await iw.runs()).sort()).toEqual(['dev vwlan0 station get 02:00:00:00:00:01', 'dev vwlan0 station get 02:00:00:00:00:02']);
  });

  it('runs iw station del for each of concurrent requests, while concurrent dumps share a run', async () => {
    const iw = await countingTool('iw-del', '');
    const network = perRequest({ iw: iw.path });
    const [deleted] = await Promise.all([concurrently(4, () => network().stationDel('02:00:00:00:00:01')), concurrently(4, () => network().stationDump())]);
    expect(deleted).toEqual([true, true, true, true]);
    expect((await iw.runs()).sort()).toEqual([...Array(4).fill('dev vwlan0 station del 02:00:00:00:00:01'), 'dev vwlan0 station dump']);
  });

  it('answers every sharer with the problem of a failed shared run', async () => {
    const dir = await temp.folder('iw-gone');
    const iw = await writeScript(dir, 'iw', `echo run >> "${dir}/calls"; sleep 0.2; echo "command failed: No such device (-19)" >&2; exit 237`);
    const network = perRequest({ iw });
    const answers = await Promise.allSettled(Array.from({ length: 5 }, () => network().stationDump()));
    expect(answers).toEqual(
      Array(5).fill({
        status: 'rejected',
        reason: expect.objectContaining({ status: 503, message: expect.stringContaining('host interface vwlan0 does not exist') }),
      }),
    );
    expect(await readFile(path.join(dir, 'calls'), 'utf8')).toBe('run\n');
  });

  it('runs hostapd_cli STATUS and GET_CONFIG once each for concurrent requests, and again after', async () => {
    const hostapdCli = await countingTool('hostapd_cli-status', 'state=ENABLED');
    const network = perRequest({ hostapdCli: hostapdCli.path });
    const [status, config] = await Promise.all([
      concurrently(10, () => network().hostapd(['STATUS'])),
      concurrently(10, () => network().hostapd(['GET_CONFIG'])),
    ]);
    expect([...status, ...config]).toEqual(Array(20).fill('state=ENABLED\n'));
    expect((await hostapdCli.runs()).sort()).toEqual(['-p /run/hostapd-test -i vwlan0 -- raw GET_CONFIG', '-p /run/hostapd-test -i vwlan0 -- raw STATUS']);
    await network().hostapd(['STATUS']);
    expect(await hostapdCli.runs()).toHaveLength(3);
  });

  it('runs hostapd_cli all_sta once for concurrent requests', async () => {
    const hostapdCli = await countingTool('hostapd_cli-all-sta-shared', '02:00:00:00:00:01');
    const network = perRequest({ hostapdCli: hostapdCli.path });
    expect(await concurrently(5, () => network().hostapdStations())).toEqual(Array(5).fill('02:00:00:00:00:01\n'));
    expect(await hostapdCli.runs()).toEqual(['-p /run/hostapd-test -i vwlan0 -- all_sta']);
  });

  it('runs hostapd_cli for each of concurrent SET and RELOAD requests, while concurrent STATUS requests share a run', async () => {
    const hostapdCli = await countingTool('hostapd_cli-set', 'OK');
    const network = perRequest({ hostapdCli: hostapdCli.path });
    await Promise.all([
      concurrently(3, () => network().hostapd(['SET', 'ssid', 'lab'])),
      concurrently(2, () => network().hostapd(['RELOAD'])),
      concurrently(3, () => network().hostapd(['STATUS'])),
    ]);
    expect((await hostapdCli.runs()).sort()).toEqual([
      ...Array(2).fill('-p /run/hostapd-test -i vwlan0 -- raw RELOAD'),
      ...Array(3).fill('-p /run/hostapd-test -i vwlan0 -- raw SET ssid lab'),
      '-p /run/hostapd-test -i vwlan0 -- raw STATUS',
    ]);
  });

  it("shares a read across the host device's requests, whose network() makes a new hostNetwork each time", async () => {
    const iw = await countingTool('iw-device', 'Station 02:00:00:00:00:01 (on vwlan0)');
    const device = createHostDevice({ stateDir: await temp.folder('device-state'), tools: { iw: iw.path } });
    await concurrently(10, () => device.network(TARGET).stationDump());
    expect(await iw.runs()).toEqual(['dev vwlan0 station dump']);
  });
});

describe('hostNetwork hostapdEvents (hostapd_cli -a)', () => {
  /**
   * A stand-in for hostapd_cli in a folder of its own: `raw PING` answers PONG; otherwise it writes
   * its arguments and pid to that folder, makes its client socket in the `-s` folder (as
   * hostapd_cli does when it connects) unless `connect` is false, runs `then` (given a FIFO in its
   * folder) and stays until killed. `$name`, `$dir` and `$prog` are its `-i`, `-s` and `-a` values.
   */
  async function fakeCli(name: string, then: (fifo: string) => string = () => '', connect = true) {
    const dir = await temp.folder(name);
    const fifo = path.join(dir, 'fifo');
    const path_ = await writeScript(
      dir,
      'hostapd_cli',
      `
case "$*" in *" raw PING") echo PONG; exit 0 ;; esac
printf '%s\\n' "$@" > "${dir}/args"
while [ $# -gt 0 ]; do case "$1" in -i) name=$2; shift 2 ;; -s) dir=$2; shift 2 ;; -a) prog=$2; shift 2 ;; *) shift ;; esac; done
echo $$ > "${dir}/pid"
${connect ? ': > "$dir/wpa_ctrl_$$-1"' : ''}
${then(fifo)}
exec sleep 60`,
    );
    return {
      path: path_,
      args: async () => (await readFile(path.join(dir, 'args'), 'utf8')).trim().split('\n'),
      pid: async () => Number(await readFile(path.join(dir, 'pid'), 'utf8')),
      fifo,
    };
  }

  /** Collects events; `next()` resolves with the next one. */
  function eventLog() {
    const events: string[] = [];
    const waiting: ((text: string) => void)[] = [];
    return {
      events,
      onEvent: (text: string) => (waiting.length > 0 ? waiting.shift()!(text) : events.push(text)),
      next: () => (events.length > 0 ? Promise.resolve(events.shift()!) : new Promise<string>((resolve) => waiting.push(resolve))),
    };
  }

  const running = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  /** hostapd_cli's private folder, named for the runtime's pid: one a killed runtime left can be told apart (removeStaleEventDirs). */
  const eventDirOfThisRuntime = new RegExp(`/chutebox-hostapd-events-${process.pid}-\\w+$`);

  it('runs hostapd_cli -p <dir> -i <name> -s <private dir named for the runtime> -a /bin/echo and hands on each event without the interface name', async () => {
    const cli = await fakeCli('events', () => '"$prog" "$name" AP-STA-CONNECTED 02:00:00:00:00:01; "$prog" other0 AP-DISABLED; "$prog" "$name" AP-DISABLED');
    const log = eventLog();
    const events = await hostNetwork(TARGET, tools({ hostapdCli: cli.path })).hostapdEvents(log.onEvent, () => expect.unreachable('no end'));
    expect(await log.next()).toBe('AP-STA-CONNECTED 02:00:00:00:00:01');
    expect(await log.next()).toBe('AP-DISABLED');
    const args = await cli.args();
    expect(args).toEqual(['-p', '/run/hostapd-test', '-i', 'vwlan0', '-s', expect.stringMatching(eventDirOfThisRuntime), '-a', '/bin/echo']);
    const pid = await cli.pid();
    expect(running(pid)).toBe(true);
    await events.stop();
    expect(running(pid)).toBe(false);
    await expect(stat(args[5]!)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('runs the configured event program (--hostapd-event-program)', async () => {
    const cli = await fakeCli('echo-setting', () => '"$prog" "$name" AP-ENABLED');
    const echo = await script('my-echo', 'echo "$1 my-echo:$2"');
    const log = eventLog();
    const events = await hostNetwork(TARGET, { ...tools({ hostapdCli: cli.path }), eventProgram: echo }).hostapdEvents(log.onEvent, () => undefined);
    expect(await log.next()).toBe('my-echo:AP-ENABLED');
    expect((await cli.args()).at(-1)).toBe(echo);
    await events.stop();
  });

  it('calls onEnd with what hostapd_cli printed when it ends by itself', async () => {
    // It waits for the test to write to its FIFO, then ends as hostapd_cli does when hostapd has gone.
    const cli = await fakeCli('ends', (fifo) => `read go < "${fifo}"; echo "hostapd did not reply to PING command - exiting"; exit 0`);
    await execFileAsync('mkfifo', [cli.fifo]);
    const ended = new Promise<string>((resolve) => {
      void hostNetwork(TARGET, tools({ hostapdCli: cli.path }))
        .hostapdEvents(() => undefined, resolve)
        .then(() => writeFile(cli.fifo, 'go\n'));
    });
    expect(await ended).toBe('hostapd_cli stopped: hostapd did not reply to PING command - exiting');
  });

  it('answers the 503 of a command when the control socket is missing, without starting hostapd_cli -a', async () => {
    const dir = await temp.folder('no-socket');
    const hostapdCli = await writeScript(
      dir,
      'hostapd_cli',
      `echo "$*" >> "${dir}/calls"; echo "Failed to connect to hostapd - wpa_ctrl_open: No such file or directory" >&2; exit 255`,
    );
    const attempt = hostNetwork(TARGET, tools({ hostapdCli })).hostapdEvents(
      () => undefined,
      () => undefined,
    );
    expect(await problemOf(attempt)).toMatchObject({
      status: 503,
      message: expect.stringContaining('hostapd control socket /run/hostapd-test/vwlan0 does not exist'),
    });
    expect((await readFile(path.join(dir, 'calls'), 'utf8')).trim().split('\n')).toEqual(['-p /run/hostapd-test -i vwlan0 -- raw PING']);
  });

  it('answers 503 naming the socket when hostapd_cli -a cannot connect', async () => {
    const cli = await fakeCli('cannot-connect', () => 'echo "Failed to connect to hostapd - wpa_ctrl_open: Connection refused" >&2; exit 255', false);
    const attempt = hostNetwork(TARGET, tools({ hostapdCli: cli.path })).hostapdEvents(
      () => undefined,
      () => undefined,
    );
    expect(await problemOf(attempt)).toMatchObject({
      status: 503,
      message: 'hostapd control socket /run/hostapd-test/vwlan0 does not answer: no hostapd is listening on it',
    });
  });

  it('answers 504 when hostapd_cli -a does not connect within the tool timeout', async () => {
    const cli = await fakeCli('never-connects', () => '', false);
    const attempt = hostNetwork(TARGET, tools({ hostapdCli: cli.path, timeoutMs: 300 })).hostapdEvents(
      () => undefined,
      () => undefined,
    );
    expect(await problemOf(attempt)).toMatchObject({ status: 504, message: expect.stringContaining('/run/hostapd-test/vwlan0 within 0.3 s') });
  });

  it('answers 503 naming hostapdControl when none is recorded', async () => {
    const attempt = hostNetwork({ ...TARGET, hostapdControl: null }, tools({})).hostapdEvents(
      () => undefined,
      () => undefined,
    );
    expect(await problemOf(attempt)).toMatchObject({ status: 503, message: expect.stringContaining('no hostapdControl recorded') });
  });
});
