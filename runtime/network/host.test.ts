import { execFile } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { NetworkTarget } from '../../functions/core/device.ts';
import { useTempDir } from '../../test/temp-dir.ts';
import { problemOf, writeScript } from '../../test/tool-scripts.ts';
import { DEFAULT_NETWORK_TOOLS, hostNetwork, type NetworkTools } from './host.ts';

const temp = useTempDir('chutebox-network-host-');
const execFileAsync = promisify(execFile);

const TARGET: NetworkTarget = { chute: 'hello', network: 'wifi', hostInterface: 'vwlan0', hostapdControl: '/run/hostapd-test/vwlan0', leaseFile: null };

/** Writes an executable shell script into the temp folder and answers its path. */
const script = (name: string, body: string) => writeScript(temp.path(), name, body);

/** Tools whose iw and hostapd_cli are the given scripts. */
const tools = (scripts: Partial<NetworkTools>): NetworkTools => ({ ...DEFAULT_NETWORK_TOOLS, iw: '/nonexistent/iw', hostapdCli: '/nonexistent/hostapd_cli', timeoutMs: 5000, ...scripts });

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
    expect(await problemOf(hostNetwork(TARGET, tools({ iw })).stationDump())).toMatchObject({ status: 503, message: expect.stringContaining('nl80211 not found') });
  });

  it('answers 503 naming iw and --iw when iw is missing, and naming hostInterface when none is recorded', async () => {
    expect(await problemOf(hostNetwork(TARGET, tools({})).stationDump())).toMatchObject({ status: 503, message: expect.stringMatching(/iw is not installed at \/nonexistent\/iw.*--iw/) });
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
    expect(await problemOf(hostNetwork({ ...TARGET, leaseFile: temp.path() }).leases())).toMatchObject({ status: 503, message: expect.stringContaining('EISDIR') });
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
    expect(await problemOf(hostNetwork(TARGET, tools({})).hostapd(['STATUS']))).toMatchObject({ status: 503, message: expect.stringMatching(/hostapd_cli is not installed.*--hostapd-cli/) });
    expect(await problemOf(hostNetwork({ ...TARGET, hostapdControl: null }, tools({})).hostapd(['STATUS']))).toMatchObject({
      status: 503,
      message: expect.stringContaining('no hostapdControl recorded'),
    });
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
    const path_ = await writeScript(dir, 'hostapd_cli', `
case "$*" in *" raw PING") echo PONG; exit 0 ;; esac
printf '%s\\n' "$@" > "${dir}/args"
while [ $# -gt 0 ]; do case "$1" in -i) name=$2; shift 2 ;; -s) dir=$2; shift 2 ;; -a) prog=$2; shift 2 ;; *) shift ;; esac; done
echo $$ > "${dir}/pid"
${connect ? ': > "$dir/wpa_ctrl_$$-1"' : ''}
${then(fifo)}
exec sleep 60`);
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

  it('runs hostapd_cli -p <dir> -i <name> -s <private dir> -a /bin/echo and hands on each event without the interface name', async () => {
    const cli = await fakeCli('events', () => '"$prog" "$name" AP-STA-CONNECTED 02:00:00:00:00:01; "$prog" other0 AP-DISABLED; "$prog" "$name" AP-DISABLED');
    const log = eventLog();
    const events = await hostNetwork(TARGET, tools({ hostapdCli: cli.path })).hostapdEvents(log.onEvent, () => expect.unreachable('no end'));
    expect(await log.next()).toBe('AP-STA-CONNECTED 02:00:00:00:00:01');
    expect(await log.next()).toBe('AP-DISABLED');
    const args = await cli.args();
    expect(args).toEqual(['-p', '/run/hostapd-test', '-i', 'vwlan0', '-s', expect.stringContaining('chutebox-hostapd-events-'), '-a', '/bin/echo']);
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
    const hostapdCli = await writeScript(dir, 'hostapd_cli', `echo "$*" >> "${dir}/calls"; echo "Failed to connect to hostapd - wpa_ctrl_open: No such file or directory" >&2; exit 255`);
    const attempt = hostNetwork(TARGET, tools({ hostapdCli })).hostapdEvents(() => undefined, () => undefined);
    expect(await problemOf(attempt)).toMatchObject({ status: 503, message: expect.stringContaining('hostapd control socket /run/hostapd-test/vwlan0 does not exist') });
    expect((await readFile(path.join(dir, 'calls'), 'utf8')).trim().split('\n')).toEqual(['-p /run/hostapd-test -i vwlan0 -- raw PING']);
  });

  it('answers 503 naming the socket when hostapd_cli -a cannot connect', async () => {
    const cli = await fakeCli('cannot-connect', () => 'echo "Failed to connect to hostapd - wpa_ctrl_open: Connection refused" >&2; exit 255', false);
    const attempt = hostNetwork(TARGET, tools({ hostapdCli: cli.path })).hostapdEvents(() => undefined, () => undefined);
    expect(await problemOf(attempt)).toMatchObject({ status: 503, message: 'hostapd control socket /run/hostapd-test/vwlan0 does not answer: no hostapd is listening on it' });
  });

  it('answers 504 when hostapd_cli -a does not connect within the tool timeout', async () => {
    const cli = await fakeCli('never-connects', () => '', false);
    const attempt = hostNetwork(TARGET, tools({ hostapdCli: cli.path, timeoutMs: 300 })).hostapdEvents(() => undefined, () => undefined);
    expect(await problemOf(attempt)).toMatchObject({ status: 504, message: expect.stringContaining('/run/hostapd-test/vwlan0 within 0.3 s') });
  });

  it('answers 503 naming hostapdControl when none is recorded', async () => {
    const attempt = hostNetwork({ ...TARGET, hostapdControl: null }, tools({})).hostapdEvents(() => undefined, () => undefined);
    expect(await problemOf(attempt)).toMatchObject({ status: 503, message: expect.stringContaining('no hostapdControl recorded') });
  });
});
