import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { NetworkTarget } from '../../functions/core/device.ts';
import { useTempDir } from '../../test/temp-dir.ts';
import { problemOf, writeScript } from '../../test/tool-scripts.ts';
import { hostNetwork, type NetworkTools } from './host.ts';

const temp = useTempDir('chutebox-network-host-');

const TARGET: NetworkTarget = { chute: 'hello', network: 'wifi', hostInterface: 'vwlan0', hostapdControl: '/run/hostapd-test/vwlan0', leaseFile: null };

/** Writes an executable shell script into the temp folder and answers its path. */
const script = (name: string, body: string) => writeScript(temp.path(), name, body);

/** Tools whose iw and hostapd_cli are the given scripts. */
const tools = (scripts: Partial<NetworkTools>): NetworkTools => ({ iw: '/nonexistent/iw', hostapdCli: '/nonexistent/hostapd_cli', timeoutMs: 5000, ...scripts });

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
