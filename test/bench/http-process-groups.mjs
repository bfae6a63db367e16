// Groups 3 to 5 of test/bench/http.mjs: memory under the read mix, start to first 200, and tool
// runs per request.
import { setTimeout as sleep } from 'node:timers/promises';
import { chuteboxCommand, freePort, INSPECTED_ENV, liveHeap, rss, spawnTracked, stopChild } from './http-procs.mjs';
import { goal, mb, median, ms, printTable, verdict } from './http-report.mjs';
import { printRatios, ratio } from './http-rounds.mjs';
import { countRuns } from './http-serve-state.mjs';
import { bareArgs, emulateArgs, honoArgs, resetIwRuns, serveArgs, startBare, startEmulate, startServe } from './http-servers.mjs';
import { FEATURES } from './http-load-groups.mjs';
import { CONNECTIONS, runWrk, writeLoad } from './http-wrk.mjs';

/** Memory rounds: five, as the goal "flat: 5th round ≤ 1.05× the 1st" reads them. */
const MEMORY_ROUNDS = 5;

/** GETs `url` until it answers 200 (every ~5 ms, at most `timeoutMs`). */
async function firstOk(url, timeoutMs = 15_000) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {}
    if (performance.now() > deadline) throw new Error(`${url} did not answer 200 within ${timeoutMs / 1000} s`);
    await sleep(5);
  }
}

/**
 * Group 3: RSS of emulate --no-auth and serve, each beside bare node:http answering its mix, just
 * after the first 200 and after each of five rounds of the read mix. In a round, chutebox serves
 * `perRound` requests (or as many as it answers within its time cap, which keeps `npm run bench`
 * under 10 minutes), then its bare node:http serves the same number: both carry the same load.
 * After round 1 and the last, chutebox's live heap is read too (`liveHeap`: a full collection, after
 * the round's RSS), the measure of what it keeps (docs/decisions/0054).
 */
export async function memoryGroup({ m, opts, previous, mix }) {
  const perRound = opts.quick ? 4_000 : 40_000;
  const capSeconds = { emulate: opts.quick ? 5 : 40, serve: opts.quick ? 5 : 15 };
  console.log(
    `\n3. Memory: VmRSS after the first 200, then after each of ${MEMORY_ROUNDS} rounds of the read mix (wrk -c${CONNECTIONS}), fresh processes.` +
      `\n   A round: chutebox until ${perRound.toLocaleString('en')} requests are answered (at most ${capSeconds.emulate} s for emulate, ${capSeconds.serve} s for serve), then its bare node:http for as many.`,
  );
  const contenders = [
    {
      key: 'emulate',
      label: 'emulate --no-auth',
      start: () => startEmulate(m, { env: INSPECTED_ENV }),
      load: mix.emulate.load,
      cap: capSeconds.emulate,
      heap: true,
    },
    { key: 'bare', label: "bare node:http (emulate's bytes)", start: () => startBare(mix.emulate.answers), load: mix.emulate.load, after: 'emulate' },
    {
      key: 'serve',
      label: 'serve, one chute on stand-in tools',
      start: () => startServe(m, { withChute: true, env: INSPECTED_ENV }),
      load: mix.serve.load,
      cap: capSeconds.serve,
      heap: true,
    },
    { key: 'bareServe', label: "bare node:http (serve's bytes)", start: () => startBare(mix.serve.answers), load: mix.serve.load, after: 'serve' },
  ];
  const figures = {};
  try {
    for (const c of contenders) {
      c.server = await c.start();
      await firstOk(`${c.server.url}${FEATURES}`);
      figures[c.key] = { label: c.label, start: await rss(c.server.pid), rounds: [], heaps: [], requests: 0, errors: 0, seconds: 0 };
    }
    for (let round = 0; round < MEMORY_ROUNDS; round++) {
      const answered = {};
      for (const c of contenders) {
        const limit = c.after === undefined ? perRound : Math.max(1, answered[c.after]);
        const run = await runWrk(c.server.url, c.load, c.cap ?? 60, { limit });
        answered[c.key] = run.requests;
        const f = figures[c.key];
        f.rounds.push(await rss(c.server.pid));
        if (c.heap && (round === 0 || round === MEMORY_ROUNDS - 1)) f.heaps.push(await liveHeap(c.server));
        f.requests += run.requests;
        f.errors += run.errors + run.httpErrors;
        f.seconds += run.requests / run.rps;
      }
    }
  } finally {
    await Promise.all(contenders.map((c) => c.server?.stop()));
  }
  printTable(
    ['VmRSS', 'start', ...Array.from({ length: MEMORY_ROUNDS }, (_, i) => `round ${i + 1}`), 'requests', 'seconds', 'errors'],
    contenders.map((c) => {
      const f = figures[c.key];
      return [c.label, mb(f.start), ...f.rounds.map(mb), f.requests.toLocaleString('en'), f.seconds.toFixed(0), String(f.errors)];
    }),
  );
  for (const c of contenders.filter((c) => c.cap !== undefined && figures[c.key].requests < perRound * MEMORY_ROUNDS)) {
    console.log(
      `NOTE: ${c.label} answered ${figures[c.key].requests.toLocaleString('en')} requests, fewer than ${(perRound * MEMORY_ROUNDS).toLocaleString('en')}: it reached its cap of ${c.cap} s a round`,
    );
  }
  const last = (key) => figures[key].rounds.at(-1);
  const one = (label, of, to, g) => ({ label, rounds: [of / to], median: of / to, goal: g?.text ?? null, verdict: verdict(of / to, g) });
  const ratios = {};
  for (const [key, base] of [
    ['emulate', 'bare'],
    ['serve', 'bareServe'],
  ]) {
    ratios[`${key} start`] = one(`${key}: start ÷ bare node's start`, figures[key].start, figures[base].start, goal('≤', 1.3));
    ratios[`${key} after`] = one(`${key}: after ${MEMORY_ROUNDS} rounds ÷ bare node's`, last(key), last(base), goal('≤', 1.5));
  }
  for (const key of ['emulate', 'serve', 'bare', 'bareServe']) {
    const g = key.startsWith('bare') ? undefined : goal('≤', 1.05);
    ratios[`${key} flat`] = one(`${figures[key].label}: round ${MEMORY_ROUNDS} ÷ round 1`, last(key), figures[key].rounds[0], g);
  }
  for (const key of ['emulate', 'serve']) {
    const [first, lastHeap] = [figures[key].heaps[0], figures[key].heaps.at(-1)];
    console.log(`live heap of ${figures[key].label} after round 1: ${mb(first)}, after round ${MEMORY_ROUNDS}: ${mb(lastHeap)}`);
    ratios[`${key} kept`] = one(`${figures[key].label}: live heap, round ${MEMORY_ROUNDS} ÷ round 1`, lastHeap, first, goal('≤', 1.05));
  }
  console.log('');
  printRatios(ratios, previous?.ratios);
  return { contenders: figures, ratios };
}

/**
 * Group 4: from spawn to the first 200 of GET /api/v1/info/features (polled every ~5 ms) of serve (a
 * fresh state dir each run), emulate --no-auth and bare node:http; `opts.rounds` runs, interleaved.
 */
export async function startupGroup({ m, opts, previous, featuresAnswers }) {
  console.log(`\n4. Start to first 200: spawn, then GET ${FEATURES} every ~5 ms until 200; ${opts.rounds} runs each, interleaved`);
  const contenders = [
    { key: 'bare', label: 'bare node:http', command: async (port) => bareArgs(featuresAnswers, port) },
    { key: 'hono', label: 'hono one-route', command: async (port) => honoArgs(featuresAnswers, port) },
    { key: 'emulate', label: 'emulate --no-auth', command: async (port) => chuteboxCommand(emulateArgs(m, { port })) },
    { key: 'serve', label: 'serve, fresh state dir', command: async (port) => chuteboxCommand(serveArgs(m, await m.newStateDir(false), { port })) },
  ];
  const took = Object.fromEntries(contenders.map((c) => [c.key, []]));
  /** VmRSS just after the first 200, of the same runs. */
  const memory = Object.fromEntries(contenders.map((c) => [c.key, []]));
  for (let run = 0; run < opts.rounds; run++) {
    for (const c of contenders) {
      const port = await freePort();
      const command = await c.command(port);
      const t0 = performance.now();
      const child = spawnTracked(command);
      child.stdout.resume();
      child.stderr.resume();
      try {
        await firstOk(`http://127.0.0.1:${port}${FEATURES}`);
        took[c.key].push(performance.now() - t0);
        memory[c.key].push(await rss(child.pid));
      } finally {
        await stopChild(child);
      }
    }
  }
  printTable(
    ['start to first 200', ...Array.from({ length: opts.rounds }, (_, i) => `run ${i + 1}`), 'median'],
    contenders.map((c) => [c.label, ...took[c.key].map(ms), ms(median(took[c.key]))]),
  );
  console.log(`VmRSS just after the first 200 (median): ${contenders.map((c) => `${c.label} ${mb(median(memory[c.key]))}`).join(', ')}`);
  const ratios = {
    // Information, not a goal: the adapter alone takes more than the withdrawn goal (docs/performance.md).
    emulate: ratio('emulate --no-auth ÷ bare node', took.emulate, took.bare),
    serve: ratio('serve ÷ bare node', took.serve, took.bare),
    hono: ratio('hono one-route ÷ bare node', took.hono, took.bare),
    emulateHono: ratio('emulate --no-auth ÷ hono one-route', took.emulate, took.hono),
    serveHono: ratio('serve ÷ hono one-route', took.serve, took.hono),
  };
  console.log('');
  printRatios(ratios, previous?.ratios, 'run');
  return { ms: took, rss: memory, ratios };
}

/**
 * Group 5: runs of the iw stand-in per request answered, for GET …/stations at 32 connections on
 * serve (a state dir with one chute).
 */
export async function toolRunsGroup({ m, opts, previous, mix }) {
  const stations = mix.serve.paths.find((p) => p.endsWith('/stations'));
  const seconds = Math.max(opts.seconds, 1);
  console.log(`\n5. Tool runs: GET ${stations} on serve, wrk -t1 -c${CONNECTIONS} -d${seconds}s; iw runs ÷ requests answered`);
  const serve = await startServe(m, { withChute: true });
  let run;
  let runs;
  try {
    await firstOk(`${serve.url}${FEATURES}`);
    await resetIwRuns(m);
    run = await runWrk(serve.url, await writeLoad(m.dir, 'stations', [stations]), seconds);
    await sleep(500);
    runs = await countRuns(m.tools.iwRuns);
  } finally {
    await serve.stop();
  }
  const perRequest = runs / run.requests;
  const g = goal('≤', 0.1);
  const prev = previous?.ratios?.perRequest?.median;
  printTable(
    ['tool runs', 'requests', 'req/s', 'errors', 'iw runs', 'runs per request', 'goal', 'verdict', 'previous'],
    [
      [
        'serve, GET …/stations',
        run.requests.toLocaleString('en'),
        Math.round(run.rps),
        String(run.errors + run.httpErrors),
        runs.toLocaleString('en'),
        perRequest.toFixed(3),
        '≤ 0.1',
        verdict(perRequest, g),
        prev === undefined ? '–' : prev.toFixed(3),
      ],
    ],
  );
  return {
    requests: run.requests,
    rps: run.rps,
    errors: run.errors + run.httpErrors,
    iwRuns: runs,
    ratios: { perRequest: { label: 'iw runs per request', rounds: [perRequest], median: perRequest, goal: g.text, verdict: verdict(perRequest, g) } },
  };
}
