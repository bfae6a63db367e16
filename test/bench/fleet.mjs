// npm run bench, after the events bench: a fleet of emulated routers in one process (issue 33).
// 1. Memory and start: `emulate --fleet N` for each size, every device addressed by one GET and, when
//    it provisions, provisioned and reported once to the built-in controller, then VmRSS, and again
//    once the devices used were idle long enough to leave (docs/decisions/0073), with the live heap
//    (docs/decisions/0054); the bytes a device costs beyond the first; how long the largest fleet
//    took to answer from its last device. Fleets larger than 10,000 run with --no-provision
//    (PROVISIONED_MOST): a held device's report builds it, and 100,000 a minute is too much CPU.
// 2. Throughput: the read mix spread over every device of a fleet, against the same mix on one
//    emulated device, in interleaved rounds (goal ≥ 0.5×), once each has answered every path: the
//    fleet's first walk, in which each device makes each answer once, is timed beside it.
// 3. Outbound: telemetry from 10,000 devices at a 60 s interval to the built-in controller, the
//    share of the reports due that came late.
// Each emulator runs as its own process, stopped by pid; temp files are removed (also on Ctrl-C).
//
// usage: node test/bench/fleet.mjs [--sizes 1,1000,10000,100000] [--seconds S] [--rounds R] [--only memory|throughput|outbound] [--built N]
// (--built N: the fleets keep at most N devices built, `emulate --fleet-built N`; default the emulator's)
// Figures are written to test/bench/results/fleet/<ISO timestamp>.json.
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { mixPaths } from './http-capture.mjs';
import { chuteboxCommand, cleanUp, cleanUpOnSignals, INSPECTED_ENV, liveHeap, root, rss, startServer, tempDir } from './http-procs.mjs';
import { goal, mb, ms, previousResults, printTable, writeResults } from './http-report.mjs';
import { interleaved, printRates, printRatios, ratio, stored } from './http-rounds.mjs';
import { CONNECTIONS } from './http-wrk.mjs';

const resultsDir = path.join(root, 'test/bench/results/fleet');

/** The size whose start and throughput are measured (issue 33: 10,000 devices answering within 5 s). */
const MEASURED_SIZE = 10_000;
/** How many GETs build the devices at once. */
const BUILDERS = 32;
/**
 * The largest fleet whose devices provision themselves in the memory group: each report of a held
 * device builds it (about 3 ms), so 100,000 devices reporting every minute would take five cores.
 */
const PROVISIONED_MOST = 10_000;

/** The fleets' idle time (`--fleet-idle`, its default): a device nothing used for that long leaves. */
const IDLE_SECONDS = 180;

/** How long after the last report the memory group reads memory: the devices provisioning used have been idle long enough to leave. */
const SETTLE_MS = IDLE_SECONDS * 1000 + 20_000;

/** How long a fleet may take to provision every device and hear a report from each: a minute of start-up jitter, then the 60 s telemetry interval. */
const PROVISIONING_MOST_MS = 180_000;

function options() {
  const { values } = parseArgs({
    options: { sizes: { type: 'string' }, seconds: { type: 'string' }, rounds: { type: 'string' }, only: { type: 'string' }, built: { type: 'string' } },
  });
  if (values.only !== undefined && !['memory', 'throughput', 'outbound'].includes(values.only))
    throw new Error(`--only takes memory, throughput or outbound, not ${values.only}`);
  const sizes = (values.sizes ?? '1,1000,10000,100000').split(',').map(Number);
  if (!sizes.every((size) => Number.isInteger(size) && size >= 1)) throw new Error(`--sizes takes whole numbers from 1, not ${values.sizes}`);
  if (values.built !== undefined && !/^[1-9][0-9]*$/.test(values.built)) throw new Error(`--built takes a whole number of devices, not ${values.built}`);
  return { sizes, seconds: Number(values.seconds ?? 10), rounds: Number(values.rounds ?? 3), only: values.only ?? null, built: values.built ?? null };
}

/**
 * `chutebox emulate --fleet size`, its network still (so that every device has the same paths), inspected for `liveHeap`;
 * its devices provision themselves unless `provision` is false (the throughput group's: one emulated device does not).
 */
const startFleet = (size, provision = true, built = null) =>
  startServer(
    `emulate --fleet ${size}`,
    chuteboxCommand([
      'emulate',
      '--fleet',
      String(size),
      '--seed',
      '1',
      '--no-auth',
      '--still',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--fleet-idle',
      String(IDLE_SECONDS),
      ...(provision ? [] : ['--no-provision']),
      ...(built === null ? [] : ['--fleet-built', built]),
    ]),
    {
      env: INSPECTED_ENV,
      timeoutMs: 60_000,
    },
  );

/** How many GETs of `buildAll` met a connection reset and were sent again (printed with the figures). */
let resets = 0;

/** `fetch(url)`, sent once more on a new connection when a kept-alive one was reset under it. */
async function fetchAgainOnReset(url) {
  try {
    return await fetch(url);
  } catch (error) {
    if (error?.cause?.code !== 'ECONNRESET') throw error;
    resets += 1;
    return fetch(url);
  }
}

/** The GETs of `count` URLs (`at(i)` the i-th), `BUILDERS` at a time, each to answer 200. Answers how long they took. */
async function getEach(count, at) {
  const began = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: BUILDERS }, async () => {
      while (next < count) {
        const url = at(next++);
        const res = await fetchAgainOnReset(url);
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}`);
      }
    }),
  );
  return performance.now() - began;
}

/** One GET of each device: every device built. Answers how long it took. */
const buildAll = (url, size) => getEach(size, (i) => `${url}/devices/router-${i}/api/v1/chutes`);

/** What the fleet's built-in controller says: how far the devices provisioned, and what it received. */
const controllerStatus = async (url) => (await fetch(`${url}/_chutebox/controller`)).json();

/**
 * Waits until no device of the fleet at `url` waits to provision and, with `reported`, until every
 * provisioned device has sent a telemetry report: what a fleet keeps once it runs as it will for
 * hours. Answers the controller's last status and how long it took.
 */
async function untilProvisioned(url, { reported = false } = {}) {
  const began = performance.now();
  const done = (now) => now.devices.waiting === 0 && (!reported || now.received.routers >= now.devices.provisioned);
  let now = await controllerStatus(url);
  while (!done(now)) {
    if (performance.now() - began > PROVISIONING_MOST_MS)
      throw new Error(`the fleet had not provisioned and reported in ${PROVISIONING_MOST_MS} ms: ${JSON.stringify(now)}`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    now = await controllerStatus(url);
  }
  return { status: now, ms: performance.now() - began };
}

/** The GET paths of the read mix at `base` but those that name a station: a station's MAC is the device's own. */
const mixPathsOf = async (base) => (await mixPaths(base)).paths.filter((p) => !/[0-9a-f]{2}(:[0-9a-f]{2}){5}/i.test(p));

/**
 * Every GET path of the read mix on every device, device by device: what each device keeps once it
 * has answered all a controller reads of it. Answers how long it took.
 */
async function readAll(url, size) {
  const paths = await mixPathsOf(`${url}/devices/router-0`);
  return getEach(size * paths.length, (i) => `${url}/devices/router-${Math.floor(i / paths.length)}${paths[i % paths.length]}`);
}

/** Group 1: memory for each size, and the start of `MEASURED_SIZE` devices. */
async function memoryGroup(opts) {
  console.log(
    `\n1. Memory: emulate --fleet N --still, every device addressed by a GET (${BUILDERS} at a time) and, when it provisions, provisioned and reported once, then VmRSS, and again ${SETTLE_MS / 1000} s later (--fleet-idle ${IDLE_SECONDS}: the devices used have left) with the live heap; for ${MEASURED_SIZE} devices, again once each answered every path of the read mix`,
  );
  if (opts.sizes.some((size) => size > PROVISIONED_MOST))
    console.log(
      `   fleets of more than ${PROVISIONED_MOST} devices run with --no-provision: each report of a held device builds it, and 100,000 a minute would take about five cores`,
    );
  const rows = [];
  for (const size of opts.sizes) {
    const began = performance.now();
    const server = await startFleet(size, size <= PROVISIONED_MOST, opts.built);
    try {
      const listening = performance.now() - began;
      const last = await fetch(`${server.url}/devices/router-${size - 1}/api/v1/info/hardware`);
      await last.arrayBuffer();
      const firstAnswer = performance.now() - began;
      const buildMs = await buildAll(server.url, size);
      // Measured once every device has provisioned and reported, and the devices that used have been idle long enough to leave.
      const provisionedMs = size <= PROVISIONED_MOST ? (await untilProvisioned(server.url, { reported: true })).ms : null;
      const rssReported = await rss(server.pid);
      if (provisionedMs !== null) await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      const addressed = await rss(server.pid);
      // The live heap after a full GC, then VmRSS again: what the devices kept, without the garbage of those that left.
      const heap = await liveHeap(server);
      const row = {
        size,
        listeningMs: listening,
        lastAnswerMs: firstAnswer,
        buildMs,
        provisionedMs,
        rssReported,
        rss: addressed,
        heap,
        rssAfterGc: await rss(server.pid),
      };
      if (size === MEASURED_SIZE) {
        const readMs = await readAll(server.url, size);
        Object.assign(row, { readMs, rssRead: await rss(server.pid), heapRead: await liveHeap(server) });
      }
      rows.push(row);
    } finally {
      await server.stop();
    }
  }
  if (resets > 0) console.log(`   ${resets} GETs met a connection reset and were sent again`);
  const one = rows.find((row) => row.size === 1) ?? rows[0];
  const perDevice = (row, key) => (row.size === one.size ? null : (row[key] - one[key]) / (row.size - one.size));
  printTable(
    [
      'devices',
      'listening',
      'last device answered',
      'all addressed',
      'then all provisioned and reported',
      'VmRSS then',
      `VmRSS ${SETTLE_MS / 1000} s later`,
      'VmRSS after a GC',
      'live heap',
      'VmRSS a device beyond the first',
      'live heap a device',
    ],
    rows.map((row) => [
      `${row.size}${row.size > PROVISIONED_MOST ? ' (--no-provision)' : ''}`,
      ms(row.listeningMs),
      ms(row.lastAnswerMs),
      ms(row.buildMs),
      row.provisionedMs === null ? '–' : ms(row.provisionedMs),
      mb(row.rssReported),
      mb(row.rss),
      mb(row.rssAfterGc),
      mb(row.heap),
      perDevice(row, 'rss') === null ? '–' : `${(perDevice(row, 'rss') / 1024).toFixed(1)} KB`,
      perDevice(row, 'heap') === null ? '–' : `${(perDevice(row, 'heap') / 1024).toFixed(1)} KB`,
    ]),
  );
  const measured = rows.find((row) => row.size === MEASURED_SIZE);
  const goals =
    measured === undefined
      ? []
      : [
          { label: `VmRSS of ${MEASURED_SIZE} devices`, value: mb(measured.rss), goal: '≤ 512 MB', verdict: measured.rss <= 512 * 2 ** 20 ? 'met' : 'NOT met' },
          {
            label: `${MEASURED_SIZE} devices: listening and the last one answered`,
            value: ms(measured.lastAnswerMs),
            goal: '≤ 5 s',
            verdict: measured.lastAnswerMs <= 5000 ? 'met' : 'NOT met',
          },
        ];
  if (measured?.rssRead !== undefined) {
    console.log(
      `   ${MEASURED_SIZE} devices, once each answered every path of the read mix (in ${ms(measured.readMs)}): VmRSS ${mb(measured.rssRead)}, live heap ${mb(measured.heapRead)}`,
    );
    goals.push({
      label: `VmRSS of ${MEASURED_SIZE} devices that answered the read mix`,
      value: mb(measured.rssRead),
      goal: '≤ 512 MB',
      verdict: measured.rssRead <= 512 * 2 ** 20 ? 'met' : 'NOT met',
    });
  }
  const large = rows.find((row) => row.size === 100_000);
  if (large !== undefined)
    goals.push({ label: 'VmRSS of 100000 devices', value: mb(large.rss), goal: '≤ 2048 MB', verdict: large.rss <= 2 * 2 ** 30 ? 'met' : 'NOT met' });
  if (goals.length > 0)
    printTable(
      ['figure', 'value', 'goal', 'verdict'],
      goals.map((g) => [g.label, g.value, g.goal, g.verdict]),
    );
  return { rows, goals };
}

/** A wrk script: the mix's paths in turn, each on the next device of the fleet (one device: no prefix). */
async function fleetLoad(dir, name, paths, size) {
  const lines = [
    `local paths = { ${paths.map((p) => JSON.stringify(p)).join(', ')} }`,
    'local i = 0',
    'request = function()',
    '  i = i + 1',
    size === null
      ? '  return wrk.format(nil, paths[i % #paths + 1])'
      : `  return wrk.format(nil, "/devices/router-" .. (i % ${size}) .. paths[(i + math.floor(i / ${size})) % #paths + 1])`,
    'end',
    'done = function(summary, latency, requests)',
    '  local e = summary.errors',
    '  io.write(string.format(\'\\nBENCH {"requests":%d,"duration_us":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50_us":%d,"p99_us":%d}\\n\',',
    '    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout, latency:percentile(50), latency:percentile(99)))',
    'end',
  ];
  const file = path.join(dir, `${name}.lua`);
  await writeFile(file, `${lines.join('\n')}\n`);
  return { file, paths };
}

/**
 * Group 2: the read mix over `MEASURED_SIZE` devices against one device, each in its steady state: a
 * dashboard polls every device again and again, and one device is warm after its warm-up, so every
 * device of the fleet first answers every path once (`readAll`), whose rate is printed as the first walk.
 */
async function throughputGroup(opts, previous) {
  const dir = await tempDir('chutebox-bench-fleet-');
  const one = await startServer('emulate --still', chuteboxCommand(['emulate', '--no-auth', '--still', '--seed', '1', '--host', '127.0.0.1', '--port', '0']));
  const fleet = await startFleet(MEASURED_SIZE, false, opts.built);
  try {
    const paths = await mixPathsOf(one.url);
    console.log(
      `\n2. Throughput: ${paths.length} GET paths of the read mix, each on the next of ${MEASURED_SIZE} devices, wrk -t1 -c${CONNECTIONS} -d${opts.seconds}s, ${opts.rounds} interleaved rounds`,
    );
    const firstWalkMs = await readAll(fleet.url, MEASURED_SIZE);
    const firstWalkRps = (MEASURED_SIZE * paths.length) / (firstWalkMs / 1000);
    console.log(`   the first walk: every path on every device, ${BUILDERS} at a time, in ${ms(firstWalkMs)}: ${Math.round(firstWalkRps)} req/s`);
    const contenders = [
      { key: 'one', label: 'one emulated device (emulate --still)', url: one.url, load: await fleetLoad(dir, 'one', paths, null) },
      { key: 'fleet', label: `the mix over ${MEASURED_SIZE} devices`, url: fleet.url, load: await fleetLoad(dir, 'fleet', paths, MEASURED_SIZE) },
    ];
    const runs = await interleaved(contenders, { rounds: opts.rounds, seconds: opts.seconds, warmup: 3 });
    printRates(contenders, runs);
    const rps = (key) => runs[key].map((run) => run.rps);
    const ratios = { fleet: ratio(`${MEASURED_SIZE} devices ÷ one device`, rps('fleet'), rps('one'), goal('≥', 0.5)) };
    printRatios(ratios, previous?.throughput?.ratios);
    return { paths: paths.length, firstWalkMs, firstWalkRps, runs: Object.fromEntries(Object.entries(runs).map(([key, r]) => [key, stored(r)])), ratios };
  } finally {
    await Promise.all([one.stop(), fleet.stop()]);
  }
}

/** How long the outbound group counts telemetry once every device has provisioned. */
const OUTBOUND_MS = 120_000;

/**
 * Group 3: telemetry from `MEASURED_SIZE` devices to the built-in controller at the default 60 s
 * interval: once every device has provisioned, the reports received over `OUTBOUND_MS` against
 * those due (one a device a minute); the share missing is the share late.
 */
async function outboundGroup() {
  console.log(`\n3. Outbound: ${MEASURED_SIZE} devices provision within 60 s, then report every 60 s; reports counted over ${OUTBOUND_MS / 1000} s`);
  const fleet = await startFleet(MEASURED_SIZE);
  try {
    const { status: now, ms: provisionedMs } = await untilProvisioned(fleet.url);
    const first = now.received.reports;
    await new Promise((resolve) => setTimeout(resolve, OUTBOUND_MS));
    const last = await controllerStatus(fleet.url);
    const due = (MEASURED_SIZE * OUTBOUND_MS) / 60_000;
    const received = last.received.reports - first;
    const late = Math.max(0, 1 - received / due);
    printTable(
      ['provisioned', 'failed', 'all provisioned after', 'reports due', 'received', 'routers reported', 'share late'],
      [
        [
          String(last.devices.provisioned),
          String(last.devices.failed),
          ms(provisionedMs),
          String(due),
          String(received),
          String(last.received.routers),
          `${(late * 100).toFixed(1)} %`,
        ],
      ],
    );
    return { provisioned: last.devices.provisioned, failed: last.devices.failed, provisionedMs, due, received, routers: last.received.routers, late };
  } finally {
    await fleet.stop();
  }
}

async function main() {
  const opts = options();
  cleanUpOnSignals();
  const started = new Date();
  const previous = await previousResults(resultsDir);
  console.log(`\nFleet bench: sizes ${opts.sizes.join(', ')} on ${os.cpus().length} CPUs, ${mb(os.totalmem())}`);
  try {
    const runs = (group) => opts.only === null || opts.only === group;
    const memory = runs('memory') ? await memoryGroup(opts) : null;
    const throughput = runs('throughput') ? await throughputGroup(opts, previous) : null;
    const outbound = runs('outbound') ? await outboundGroup() : null;
    const file = await writeResults({ startedAt: started.toISOString(), opts, memory, throughput, outbound }, resultsDir);
    console.log(`\nwritten to ${file}`);
  } finally {
    await cleanUp();
  }
}

await main();
