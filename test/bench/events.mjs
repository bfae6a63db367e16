// npm run bench, after the HTTP rounds: the memory of `chutebox emulate` while 32 clients follow
// GET /api/v1/events and changes and station disconnections make events, for 10 minutes: its VmRSS
// every 30 s, and what its heap keeps as data (a heap snapshot less compiled code, after a full
// garbage collection) at 180 s (half-way in a shorter run) and at the end, the last against the first
// (goal ≤ 1.05×: flat; docs/decisions/0054). The emulator runs as its own process, stopped by pid at
// the end; its temp dir is removed (also on an error or Ctrl-C).
//
// usage: node test/bench/events.mjs [--minutes M] [--clients N]
//   --minutes M  how long the clients follow the events (default 10, or CHUTEBOX_BENCH_EVENTS_MINUTES;
//                fractions allowed: 1 for a quick look)
//   --clients N  how many clients follow them (default 32)
// Figures are written to test/bench/results/events/<ISO timestamp>.json; the previous file's ratio is
// printed beside this run's.
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import {
  chuteboxCommand,
  cleanUp,
  cleanUpOnSignals,
  heapSnapshotSizes,
  INSPECTED_ENV,
  interrupted,
  keptData,
  root,
  rss,
  startServer,
  tempDir,
} from './http-procs.mjs';
import { goal, mb, previousResults, printTable, verdict, writeResults } from './http-report.mjs';
import { printRatios } from './http-rounds.mjs';

/** How often the emulator's VmRSS is read. */
const SAMPLE_MS = 30_000;
/**
 * When the first heap snapshot is taken (or half-way through a shorter run): once what fills under
 * this load is full, the event buffer (1000 events, in under 40 s) and the weak tables of the
 * events' frames and of frozen documents, whose backing stores grow to hold the keys made between
 * two mark-compacts (64 KB each at 60 s, 128 KB from 180 s to the end: docs/decisions/0054).
 */
const FIRST_HEAP_S = 180;
/** How often a chute is restarted (each restart makes seven events), alternating between the two chutes. */
const RESTART_MS = 250;
/** How often a station is disconnected and the emulator's state reset (its stations back). */
const STATION_MS = 10_000;

const resultsDir = path.join(root, 'test/bench/results/events');

/** The options of the command line. */
function options() {
  const { values } = parseArgs({ options: { minutes: { type: 'string' }, clients: { type: 'string' } } });
  const minutes = Number(values.minutes ?? process.env.CHUTEBOX_BENCH_EVENTS_MINUTES ?? 10);
  const clients = Number(values.clients ?? 32);
  if (!(minutes > 0)) throw new Error(`--minutes takes a number of minutes above 0, not ${values.minutes}`);
  if (!Number.isInteger(clients) || clients < 1 || clients > 64) throw new Error(`--clients takes a whole number from 1 to 64, not ${values.clients}`);
  return { minutes, clients };
}

/** A client that follows the events and counts what it gets; `ended` says whether the stream ended before it closed it. */
async function follow(url) {
  const abort = new AbortController();
  const res = await fetch(`${url}/api/v1/events`, { signal: abort.signal });
  if (res.status !== 200) throw new Error(`GET /api/v1/events answered ${res.status}: ${await res.text()}`);
  const client = { events: 0, bytes: 0, ended: false, close: () => abort.abort() };
  const decoder = new TextDecoder();
  let rest = '';
  void (async () => {
    try {
      for await (const chunk of res.body) {
        client.bytes += chunk.byteLength;
        const lines = (rest + decoder.decode(chunk, { stream: true })).split('\n');
        rest = lines.pop();
        client.events += lines.filter((line) => line.startsWith('event: ')).length;
      }
      client.ended = true;
    } catch {
      client.ended = !abort.signal.aborted;
    }
  })();
  return client;
}

/** Makes events until `signal` aborts: a restart every `RESTART_MS`, a station disconnected (then the state reset) every `STATION_MS`. */
async function makeEvents(url, signal, counts) {
  const post = async (method, endpoint) => {
    const res = await fetch(`${url}${endpoint}`, { method, signal });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${method} ${endpoint} answered ${res.status}`);
  };
  let lastStation = performance.now();
  for (let i = 0; !signal.aborted; i++) {
    try {
      await post('POST', `/api/v1/chutes/${i % 2 === 0 ? 'hotspot' : 'hello-world'}/restart`);
      counts.restarts++;
      if (performance.now() - lastStation >= STATION_MS) {
        lastStation = performance.now();
        const stations = await (await fetch(`${url}/api/v1/chutes/hotspot/networks/guest/stations`, { signal })).json();
        await post('DELETE', `/api/v1/chutes/hotspot/networks/guest/stations/${stations[0].mac_addr}`);
        await post('POST', '/_chutebox/state/reset');
        counts.stations++;
      }
      await sleep(RESTART_MS, undefined, { signal });
    } catch (error) {
      if (!signal.aborted) throw error;
    }
  }
}

async function main() {
  const opts = options();
  cleanUpOnSignals();
  const started = new Date();
  const previous = await previousResults(resultsDir);
  console.log(
    `\nEvents bench: ${opts.clients} clients follow GET /api/v1/events of emulate --no-auth for ${opts.minutes} min while chutes restart ` +
      `(every ${RESTART_MS} ms) and stations are disconnected (every ${STATION_MS / 1000} s); VmRSS every ${SAMPLE_MS / 1000} s`,
  );
  const dir = await tempDir('chutebox-bench-events-');
  const settings = path.join(dir, 'settings');
  await writeFile(settings, '');
  const server = await startServer(
    'emulate',
    chuteboxCommand(['emulate', '--scenario', 'default', '--host', '127.0.0.1', '--port', '0', '--no-auth', '--change-delay', '20', '--settings', settings]),
    { env: INSPECTED_ENV },
  );
  const clients = await Promise.all(Array.from({ length: opts.clients }, () => follow(server.url)));
  const stop = new AbortController();
  const counts = { restarts: 0, stations: 0 };
  const load = makeEvents(server.url, stop.signal, counts);
  const samples = [];
  const heaps = [];
  const end = performance.now() + opts.minutes * 60_000;
  const firstHeapS = Math.min(FIRST_HEAP_S, (opts.minutes * 60) / 2);
  try {
    while (performance.now() < end) {
      await Promise.race([sleep(Math.min(SAMPLE_MS, end - performance.now())), load]);
      const seconds = Math.round((opts.minutes * 60_000 - (end - performance.now())) / 1000);
      samples.push({ seconds, rss: await rss(server.pid) });
      // A heap snapshot once at firstHeapS and once at the end, each after this sample's VmRSS.
      const heap = (heaps.length === 0 && seconds >= firstHeapS) || performance.now() >= end ? { seconds, ...(await heapSnapshotSizes(server)) } : null;
      if (heap !== null) heaps.push(heap);
      const read = heap === null ? '' : `, live heap ${mb(heap.heap)} (data ${mb(keptData(heap))}, compiled code ${mb(heap.code)})`;
      console.log(`  ${String(seconds).padStart(4)} s: VmRSS ${mb(samples.at(-1).rss)}${read}, ${clients[0].events} events to each client`);
    }
  } finally {
    stop.abort();
    await load;
  }
  // The last events reach every client.
  await sleep(1000);
  const perClient = clients.map((client) => client.events);
  const dropped = clients.filter((client) => client.ended).length;
  for (const client of clients) client.close();
  await server.stop();

  // VmRSS compared only after the first snapshot, which adds its own memory to what the process holds.
  const last = samples.at(-1);
  const first = samples.find((sample) => sample.seconds > heaps[0].seconds) ?? last;
  const [firstHeap, lastHeap] = [heaps[0], heaps.at(-1)];
  const g = goal('≤', 1.05);
  const kept = keptData(lastHeap) / keptData(firstHeap);
  const span = `at ${lastHeap.seconds} s ÷ at ${firstHeap.seconds} s`;
  const info = (label, value) => ({ label, rounds: [value], median: value, goal: '(info)', verdict: 'info' });
  const ratios = {
    kept: { label: `live heap less compiled code ${span}`, rounds: [kept], median: kept, goal: g.text, verdict: verdict(kept, g) },
    heap: info(`live heap ${span}`, lastHeap.heap / firstHeap.heap),
    code: info(`compiled code ${span}`, lastHeap.code / firstHeap.code),
    rssAfterSnapshot: info(`VmRSS at ${last.seconds} s ÷ at ${first.seconds} s`, last.rss / first.rss),
  };
  printTable(
    ['events', 'restarts', 'stations', 'per client (min–max)', 'MB to each client', 'clients dropped'],
    [
      [
        `${opts.clients} clients`,
        String(counts.restarts),
        String(counts.stations),
        `${Math.min(...perClient)}–${Math.max(...perClient)}`,
        (clients[0].bytes / 1024 / 1024).toFixed(1),
        String(dropped),
      ],
    ],
  );
  printRatios(ratios, previous?.ratios);
  const results = {
    startedAt: started.toISOString(),
    options: opts,
    machine: { node: process.version, nproc: os.availableParallelism(), loadavg: os.loadavg() },
    samples,
    heaps,
    events: { restarts: counts.restarts, stations: counts.stations, perClient: { min: Math.min(...perClient), max: Math.max(...perClient) }, dropped },
    ratios,
    seconds: (Date.now() - started.getTime()) / 1000,
  };
  const file = await writeResults(results, resultsDir);
  console.log(`\n${ratios.kept.verdict === 'met' ? '1 of 1 goal met' : '0 of 1 goal met'}; figures written to ${file}`);
  if (dropped > 0 || Math.min(...perClient) !== Math.max(...perClient)) console.log('WARNING: a client was dropped or missed events');
}

try {
  await main();
} catch (error) {
  if (!interrupted) console.error(error);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
