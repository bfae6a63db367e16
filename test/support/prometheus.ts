import { type ChildProcess, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { findOnPath } from './dockerd.ts';

/*
 * Prometheus' own tools, from Debian's `prometheus` package, for the tests of GET /metrics: promtool's
 * parser and lint of the text format, and the Prometheus server, which negotiates OpenMetrics and
 * parses it as it scrapes.
 */

/** promtool on PATH, or null. */
export const PROMTOOL = findOnPath('promtool');

/** The Prometheus server on PATH, or null. */
export const PROMETHEUS = findOnPath('prometheus');

/**
 * Whether a test file that needs promtool and Prometheus is skipped: without them, unless
 * CHUTEBOX_REQUIRE_PROMTOOL is set (as in CI), when missing them is a failure. Prints why when it skips.
 */
export function skipWithoutPromtool(file: string): boolean {
  const skipped = (PROMTOOL === null || PROMETHEUS === null) && !process.env.CHUTEBOX_REQUIRE_PROMTOOL;
  if (skipped) {
    console.warn(
      `${file}: its Prometheus checks are skipped: promtool or prometheus is not on PATH (apt-get install -y --no-install-recommends prometheus); set CHUTEBOX_REQUIRE_PROMTOOL=1 to make this a failure`,
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

/** A Prometheus server that a test started, and the one job it scrapes. */
export interface RunningPrometheus {
  url: string;
  /** The instant vector of a PromQL expression (`/api/v1/query`): each series' labels and value. */
  query(expression: string): Promise<{ metric: Record<string, string>; value: number }[]>;
  /** Stops it by its pid and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Starts Prometheus on 127.0.0.1 with its data in `dir`, scraping `target` (`host:port`) every second
 * as job `chutebox`, with `auth` added to the scrape config (`{ basic_auth: { … } }`), and waits
 * until it is ready.
 *
 * @example
 * const prometheus = await startPrometheus(dir, '127.0.0.1:8080', { basic_auth: { username: 'paradrop', password: '' } });
 * await prometheus.query('up{job="chutebox"}') // [{ metric: { … }, value: 1 }] once it has scraped
 */
export async function startPrometheus(dir: string, target: string, auth: Record<string, unknown>): Promise<RunningPrometheus> {
  const port = await freePort();
  const config = path.join(dir, 'prometheus.yml');
  const scrape = { job_name: 'chutebox', scrape_interval: '1s', scrape_timeout: '1s', static_configs: [{ targets: [target] }], ...auth };
  // JSON is YAML.
  await writeFile(config, JSON.stringify({ scrape_configs: [scrape] }));
  const args = [`--config.file=${config}`, `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'];
  const child = spawn(PROMETHEUS ?? 'prometheus', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-20_000)));
  const url = `http://127.0.0.1:${port}`;
  const running: RunningPrometheus = {
    url,
    async query(expression) {
      const answer = (await (await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expression)}`)).json()) as {
        data: { result: { metric: Record<string, string>; value: [number, string] }[] };
      };
      return answer.data.result.map(({ metric, value }) => ({ metric, value: Number(value[1]) }));
    },
    stop: () => stopChild(child),
  };
  const deadline = Date.now() + 30_000;
  while (
    !(await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await running.stop();
      throw new Error(`prometheus did not get ready:\n${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return running;
}

/** A TCP port nothing listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** SIGTERM by pid, SIGKILL after 5 s; resolves once it has exited. */
function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const kill = setTimeout(() => process.kill(child.pid!, 'SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    process.kill(child.pid!, 'SIGTERM');
  });
}
