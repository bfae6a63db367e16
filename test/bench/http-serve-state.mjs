// The machine that `chutebox serve` runs against in test/bench/http.mjs: a state dir holding one chute
// whose WiFi access point points at stand-ins (an iw that prints a recorded station dump, a
// hostapd_cli that prints a recorded STATUS and GET_CONFIG, a dnsmasq lease file), a passwd file with
// the paradrop account and its authorized_keys, and an empty settings file.
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The chute and network of the state dir. */
export const CHUTE = 'benchchute';
export const NETWORK = 'wifi';
const HOST_INTERFACE = 'vwlan0';

/** test/support/fake-iw.ts's STATION_DUMP (iw 6.x, two stations), shortened to the lines that differ. */
const STATIONS = [
  ['3c:22:fb:0a:11:01', -48, '866.7 MBit/s VHT-MCS 9 80MHz short GI VHT-NSS 2', '780.0 MBit/s VHT-MCS 8 80MHz short GI VHT-NSS 2', 3600],
  ['8a:5e:01:9c:d2:77', -71, '286.7 MBit/s 80MHz HE-MCS 3 HE-NSS 2 HE-GI 0 HE-DCM 0', '6.0 MBit/s', 95],
];

/** `iw dev vwlan0 station dump` of an AP with the stations above, as iw 6.x prints it. */
function stationBlock([mac, signal, tx, rx, connected]) {
  return (
    `Station ${mac} (on ${HOST_INTERFACE})\n\tinactive time:\t1210 ms\n\trx bytes:\t1048576\n\trx packets:\t6250\n\ttx bytes:\t2359296\n` +
    `\ttx packets:\t4100\n\ttx retries:\t12\n\ttx failed:\t0\n\tbeacon loss:\t0\n\trx drop misc:\t3\n` +
    `\tsignal:  \t${signal} [${signal - 2}, ${signal - 4}] dBm\n\tsignal avg:\t${signal + 1} [${signal - 1}, ${signal - 3}] dBm\n` +
    `\ttx bitrate:\t${tx}\n\ttx duration:\t123456 us\n\trx bitrate:\t${rx}\n\trx duration:\t98765 us\n\tairtime weight: 256\n` +
    `\tauthorized:\tyes\n\tauthenticated:\tyes\n\tassociated:\tyes\n\tpreamble:\tlong\n\tWMM/WME:\tyes\n\tMFP:\t\tno\n\tTDLS peer:\t\tno\n` +
    `\tDTIM period:\t2\n\tbeacon interval:100\n\tshort slot time:yes\n\tconnected time:\t${connected} seconds\n` +
    `\tassociated at [boottime]:\t1234.567s\n\tassociated at:\t1700000000000 ms\n\tcurrent time:\t1700003600000 ms\n`
  );
}

/** hostapd's reply to `STATUS` (hostapd 2.10, a VHT80 AP on channel 36). */
const HOSTAPD_STATUS = `state=ENABLED
phy=phy0
freq=5180
num_sta_non_erp=0
num_sta_no_short_slot_time=0
num_sta_no_short_preamble=0
olbc=0
num_sta_ht_no_gf=0
num_sta_no_ht=0
num_sta_ht_20_mhz=0
num_sta_ht40_intolerant=0
olbc_ht=0
ht_op_mode=0x0
cac_time_seconds=0
cac_time_left_seconds=N/A
channel=36
secondary_channel=1
ieee80211n=1
ieee80211ac=1
beacon_int=100
dtim_period=2
vht_oper_chwidth=1
vht_oper_centr_freq_seg0_idx=42
vht_oper_centr_freq_seg1_idx=0
supported_rates=0c 12 18 24 30 48 60 6c
max_txpower=23
bss[0]=${HOST_INTERFACE}
bssid[0]=02:00:00:00:03:00
ssid[0]=chutebox-bench
num_sta[0]=2
`;

/** hostapd's reply to `GET_CONFIG`. */
const HOSTAPD_CONFIG = `bssid=02:00:00:00:03:00
ssid=chutebox-bench
wps_state=disabled
wpa=2
key_mgmt=WPA-PSK
group_cipher=CCMP
rsn_pairwise_cipher=CCMP
`;

/** Writes an executable /bin/sh script. */
async function script(file, body) {
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, 0o755);
  return file;
}

/** Single-quotes a path for /bin/sh. */
const sh = (text) => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * Writes the stand-in tools into `dir`. Each run of iw appends a line to `iwRuns` (counted by the
 * tool-runs group). Answers `{ iw, hostapdCli, iwRuns, stationMac }`.
 */
export async function writeTools(dir) {
  const rec = path.join(dir, 'recordings');
  await mkdir(rec, { recursive: true });
  await writeFile(path.join(rec, 'station-dump.txt'), STATIONS.map(stationBlock).join(''));
  for (const station of STATIONS) await writeFile(path.join(rec, `station-${station[0]}.txt`), stationBlock(station));
  await writeFile(path.join(rec, 'hostapd-STATUS.txt'), HOSTAPD_STATUS);
  await writeFile(path.join(rec, 'hostapd-GET_CONFIG.txt'), HOSTAPD_CONFIG);
  const iwRuns = path.join(dir, 'iw-runs.log');
  await writeFile(iwRuns, '');
  const iw = await script(
    path.join(dir, 'iw'),
    `# A stand-in for iw (test/bench/http-serve-state.mjs): dev ${HOST_INTERFACE} station dump|get MAC.
echo "$*" >> ${sh(iwRuns)}
[ "$1" = dev ] && [ "$3" = station ] || { echo "bench iw: unexpected arguments: $*" >&2; exit 2; }
[ "$2" = ${HOST_INTERFACE} ] || { echo "command failed: No such device (-19)" >&2; exit 237; }
case "$4" in
  dump) exec cat ${sh(rec)}/station-dump.txt ;;
  get) [ -f ${sh(rec)}/station-"$5".txt ] || { echo "command failed: No such file or directory (-2)" >&2; exit 254; }
       exec cat ${sh(rec)}/station-"$5".txt ;;
  *) echo "bench iw: unexpected arguments: $*" >&2; exit 2 ;;
esac`,
  );
  const hostapdCli = await script(
    path.join(dir, 'hostapd_cli'),
    `# A stand-in for hostapd_cli (test/bench/http-serve-state.mjs): -p DIR -i IF -- raw STATUS|GET_CONFIG.
while [ $# -gt 0 ] && [ "$1" != raw ]; do shift; done
case "$2" in
  STATUS|GET_CONFIG) exec cat ${sh(rec)}/hostapd-"$2".txt ;;
  *) echo FAIL ;;
esac`,
  );
  return { iw, hostapdCli, iwRuns, stationMac: STATIONS[0][0] };
}

/** How many times the iw stand-in has run. */
export async function countRuns(iwRuns) {
  return (await readFile(iwRuns, 'utf8')).split('\n').filter(Boolean).length;
}

/** A dnsmasq lease file: a lease for each station and some for clients that left. */
function leaseFile() {
  let text = '';
  for (const [n, [mac]] of STATIONS.entries()) text += `1700040000 ${mac} 192.168.33.${20 + n} host-${n} 01:${mac}\n`;
  for (let n = 0; n < 8; n++)
    text += `${n === 0 ? 0 : 1700030000 + n} 02:5e:00:00:00:${n.toString(16).padStart(2, '0')} 192.168.33.${100 + n} ${n % 3 === 0 ? '*' : `gone-${n}`} *\n`;
  return text;
}

/**
 * Writes the files serve reads, into `dir`: passwd (paradrop, home with one authorized key), an empty
 * settings file, the lease file. Answers `{ passwd, settings, leases }`.
 */
export async function writeMachine(dir) {
  const home = path.join(dir, 'home-paradrop');
  await mkdir(path.join(home, '.ssh'), { recursive: true, mode: 0o700 });
  await writeFile(
    path.join(home, '.ssh', 'authorized_keys'),
    'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOYQCR79wTkopZEI7TPCCdvUca3ytIz21Oxrd1q+Rwur paradrop@bench\n',
    { mode: 0o600 },
  );
  const passwd = path.join(dir, 'passwd');
  await writeFile(passwd, `paradrop:x:${process.getuid()}:${process.getgid()}:ParaDrop:${home}:/bin/sh\n`);
  const settings = path.join(dir, 'settings');
  await writeFile(settings, '');
  const leases = path.join(dir, 'dnsmasq.leases');
  await writeFile(leases, leaseFile());
  return { passwd, settings, leases };
}

/**
 * Installs the chute in `stateDir` as the runtime stores it (test/support/chute-state.ts `writeChute`):
 * chutes/<name>/chute.json, service.json with `net`, cache.json with `networks.<net>`.
 */
export async function writeChuteState(stateDir, leases) {
  const dir = path.join(stateDir, 'chutes', CHUTE);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const write = (file, value) => writeFile(path.join(dir, file), `${JSON.stringify(value, null, 2)}\n`);
  await write('chute.json', { name: CHUTE, version: 1, state: 'running', environment: {}, resources: {} });
  await write('service.json', { net: { [NETWORK]: { type: 'wifi', mode: 'ap', intfName: 'wlan0', ssid: 'chutebox-bench' } } });
  const hostapdControl = path.join(stateDir, 'hostapd', HOST_INTERFACE);
  await write('cache.json', { networks: { [NETWORK]: { hostInterface: HOST_INTERFACE, hostapdControl, leaseFile: leases } } });
}
