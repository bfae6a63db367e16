import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * `iw dev wlan0 station dump` of an AP with two stations, as iw 6.x prints it (tabs, `beacon
 * interval:100` without a space, per-chain signals, VHT and HE rates, durations).
 */
export const STATION_DUMP = `Station 3c:22:fb:0a:11:01 (on wlan0)
\tinactive time:\t1210 ms
\trx bytes:\t1048576
\trx packets:\t6250
\ttx bytes:\t2359296
\ttx packets:\t4100
\ttx retries:\t12
\ttx failed:\t0
\tbeacon loss:\t0
\tbeacon rx:\t5130
\trx drop misc:\t3
\tsignal:  \t-48 [-50, -52] dBm
\tsignal avg:\t-47 [-49, -51] dBm
\tbeacon signal avg:\t-46 dBm
\ttx bitrate:\t866.7 MBit/s VHT-MCS 9 80MHz short GI VHT-NSS 2
\ttx duration:\t123456 us
\trx bitrate:\t780.0 MBit/s VHT-MCS 8 80MHz short GI VHT-NSS 2
\trx duration:\t98765 us
\tairtime weight: 256
\tauthorized:\tyes
\tauthenticated:\tyes
\tassociated:\tyes
\tpreamble:\tlong
\tWMM/WME:\tyes
\tMFP:\t\tno
\tTDLS peer:\t\tno
\tDTIM period:\t2
\tbeacon interval:100
\tshort slot time:yes
\tconnected time:\t3600 seconds
\tassociated at [boottime]:\t1234.567s
\tassociated at:\t1700000000000 ms
\tcurrent time:\t1700003600000 ms
Station 8a:5e:01:9c:d2:77 (on wlan0)
\tinactive time:\t40 ms
\trx bytes:\t52311
\trx packets:\t402
\ttx bytes:\t88120
\ttx packets:\t390
\ttx retries:\t0
\ttx failed:\t0
\tbeacon loss:\t0
\trx drop misc:\t0
\tsignal:  \t-71 [-73, -74] dBm
\tsignal avg:\t-70 [-72, -73] dBm
\ttx bitrate:\t286.7 MBit/s 80MHz HE-MCS 3 HE-NSS 2 HE-GI 0 HE-DCM 0
\trx bitrate:\t6.0 MBit/s
\texpected throughput:\t101.318Mbps
\tauthorized:\tyes
\tauthenticated:\tyes
\tassociated:\tyes
\tpreamble:\tlong
\tWMM/WME:\tyes
\tMFP:\t\tyes
\tTDLS peer:\t\tno
\tDTIM period:\t2
\tbeacon interval:100
\tshort slot time:yes
\tconnected time:\t95 seconds
\tassociated at [boottime]:\t4739.122s
\tassociated at:\t1700003505000 ms
\tcurrent time:\t1700003600000 ms
`;

/** The MACs of {@link STATION_DUMP}, in order. */
export const STATION_MACS = ['3c:22:fb:0a:11:01', '8a:5e:01:9c:d2:77'];

export interface FakeIw {
  /** The script to pass as `--iw`. */
  path: string;
  /** Every command line it was run with, one per call, arguments joined by spaces. */
  calls(): Promise<string[]>;
}

/**
 * Writes a stand-in for `iw` into `dir` that answers as iw does on a machine where `hostInterface`
 * is an AP with the stations of `dump`: `dev <if> station dump` prints the dump, `station get <mac>`
 * that station's block, `station del <mac>` nothing; an unknown MAC fails as iw does (`command failed:
 * No such file or directory (-2)`, exit 254) and another interface as a missing device (-19).
 *
 * @example
 * const iw = await writeFakeIw(dir, 'vwlan0', STATION_DUMP);
 * await startChutebox(['serve', '--iw', iw.path, …]);
 */
export async function writeFakeIw(dir: string, hostInterface: string, dump: string): Promise<FakeIw> {
  const recordings = path.join(dir, 'recordings');
  await mkdir(recordings, { recursive: true });
  await writeFile(path.join(recordings, 'station-dump.txt'), dump);
  for (const block of dump.split(/^(?=Station )/m).filter(Boolean)) {
    const mac = /^Station ([0-9a-f:]{17}) /.exec(block)![1]!;
    await writeFile(path.join(recordings, `station-${mac}.txt`), block);
  }
  const log = path.join(dir, 'calls.log');
  await writeFile(log, '');
  const script = path.join(dir, 'iw');
  await writeFile(
    script,
    `#!/bin/sh
# A stand-in for iw, written by test/support/fake-iw.ts.
echo "$*" >> '${log}'
[ "$1" = dev ] && [ "$3" = station ] || { echo "fake iw: unexpected arguments: $*" >&2; exit 2; }
[ "$2" = '${hostInterface}' ] || { echo "command failed: No such device (-19)" >&2; exit 237; }
case "$4" in
  dump) exec cat '${recordings}/station-dump.txt' ;;
  get|del)
    recording='${recordings}/station-'"$5"'.txt'
    [ -f "$recording" ] || { echo "command failed: No such file or directory (-2)" >&2; exit 254; }
    [ "$4" = del ] || exec cat "$recording" ;;
  *) echo "fake iw: unexpected arguments: $*" >&2; exit 2 ;;
esac
`,
  );
  await chmod(script, 0o755);
  return { path: script, calls: async () => (await readFile(log, 'utf8')).split('\n').filter(Boolean) };
}

/**
 * Writes an `iw` that never answers (it sleeps for a minute) into `dir`, for timeouts.
 *
 * @example
 * const slow = await writeSilentIw(dir);
 */
export async function writeSilentIw(dir: string): Promise<string> {
  const script = path.join(dir, 'iw');
  await writeFile(script, '#!/bin/sh\nexec sleep 60\n');
  await chmod(script, 0o755);
  return script;
}
