import { spawn } from 'node:child_process';
import { findOnPath } from './dockerd.ts';

/** promtool on PATH (Debian's `prometheus` package), or null: the tests that check an exposition with Prometheus' own parser need it. */
export const PROMTOOL = findOnPath('promtool');

/**
 * Whether a test file that needs promtool is skipped: without it, unless CHUTEBOX_REQUIRE_PROMTOOL is
 * set (as in CI), when missing promtool is a failure. Prints why when it skips.
 */
export function skipWithoutPromtool(file: string): boolean {
  const skipped = PROMTOOL === null && !process.env.CHUTEBOX_REQUIRE_PROMTOOL;
  if (skipped) {
    console.warn(
      `${file} skipped: promtool is not on PATH (apt-get install -y --no-install-recommends prometheus); set CHUTEBOX_REQUIRE_PROMTOOL=1 to make this a failure`,
    );
  }
  return skipped;
}

/**
 * What promtool's lint says of the names chutebox takes as they are from node exporter
 * (`node_memory_<field>_bytes` keeps /proc/meminfo's spelling) and from OpenWrt's
 * prometheus-node-exporter-lua (milliseconds and kbit/s): the only problems an exposition may have.
 */
export const ADOPTED_NAME_PROBLEMS = [
  ...['MemAvailable', 'MemFree', 'MemTotal', 'SwapFree', 'SwapTotal'].map(
    (field) => `node_memory_${field}_bytes metric names should be written in 'snake_case' not 'camelCase'`,
  ),
  'wifi_station_inactive_milliseconds use base unit "seconds" instead of "milliseconds"',
  'wifi_station_receive_kilobits_per_second use base unit "bytes" instead of "kilobits"',
  'wifi_station_transmit_kilobits_per_second use base unit "bytes" instead of "kilobits"',
];

/** What `promtool check metrics` says of an exposition in the text format. */
export interface PromtoolVerdict {
  /** 0 when it is fine, 3 when it parses but the lint finds problems, 1 when it does not parse. */
  code: number | null;
  /** Each line promtool printed: a lint problem (`<metric> <problem>`) or why it could not parse. */
  problems: string[];
}

/**
 * Runs `promtool check metrics` on `text` (it reads the exposition from stdin), within 20 seconds.
 *
 * @example
 * await checkMetrics(await (await fetch(`${url}/metrics`)).text()) // { code: 3, problems: ADOPTED_NAME_PROBLEMS }
 */
export function checkMetrics(text: string): Promise<PromtoolVerdict> {
  return new Promise((resolve, reject) => {
    const child = spawn(PROMTOOL ?? 'promtool', ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, problems: output.split('\n').filter((line) => line !== '') });
    });
    child.stdin.end(text);
  });
}
