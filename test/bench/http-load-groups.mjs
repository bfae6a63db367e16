// Groups 1 and 2 of test/bench/http.mjs: throughput of one endpoint, and of the read mix, each
// contender against bare node:http answering the same bytes, in interleaved rounds.
import path from 'node:path';
import { capture, checkAnswers, mixPaths, timeEach } from './http-capture.mjs';
import { goal, median, ms } from './http-report.mjs';
import { interleaved, printRates, printRatios, ratio, stored } from './http-rounds.mjs';
import { login, startBare, startEmulate, startHono, startHonoBounded, startServe } from './http-servers.mjs';
import { CONNECTIONS, writeLoad } from './http-wrk.mjs';

export const FEATURES = '/api/v1/info/features';

/** Prometheus' scrape: each reads the whole emulated device (runtime/http/metrics.ts). */
export const METRICS = '/metrics';

/** Starts servers for a group and stops every one at its end. */
async function withServers(run) {
  const servers = [];
  const start = async (starting) => {
    const server = await starting;
    servers.push(server);
    return server;
  };
  try {
    return await run(start);
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}

/** `text` in lines of at most ~110 characters, indented by 3. */
function wrap(text) {
  const lines = [''];
  for (const word of text.split(' ')) {
    if (lines.at(-1).length + word.length > 110) lines.push('  ');
    lines[lines.length - 1] += `${word} `;
  }
  return lines.map((line) => `   ${line.trimEnd()}`).join('\n');
}

/** The req/s of each round of a contender. */
const rpsOf = (runs, key) => runs[key].map((r) => r.rps);

/**
 * Group 1: GET /api/v1/info/features at 32 connections on emulate (no auth, Bearer, Basic), serve
 * (empty state dir), hono one-route (with Node's default heap and with chutebox's) and bare
 * node:http; and what a scrape of GET /metrics costs on emulate, beside its GET features. Answers
 * the group's figures.
 */
export async function throughputGroup({ m, opts, previous }) {
  console.log(
    `\n1. Throughput: GET ${FEATURES}, wrk -t1 -c${CONNECTIONS} -d${opts.seconds}s, ${opts.rounds} interleaved rounds (ratio = req/s ÷ req/s of the baseline in the same round)`,
  );
  return withServers(async (start) => {
    const noAuth = await start(startEmulate(m));
    const auth = await start(startEmulate(m, { auth: true }));
    const serve = await start(startServe(m));
    const bearer = { authorization: `Bearer ${await login(auth.url)}` };
    const basic = { authorization: `Basic ${Buffer.from('paradrop:').toString('base64')}` };
    const emulateAnswers = path.join(m.dir, 'features-emulate.json');
    const serveAnswers = path.join(m.dir, 'features-serve.json');
    await capture(noAuth.url, [FEATURES], {}, emulateAnswers);
    await capture(auth.url, [FEATURES], bearer, path.join(m.dir, 'features-bearer.json'));
    await capture(auth.url, [FEATURES], basic, path.join(m.dir, 'features-basic.json'));
    await capture(serve.url, [FEATURES], {}, serveAnswers);
    const bare = await start(startBare(emulateAnswers));
    const hono = await start(startHono(emulateAnswers));
    const honoBounded = await start(startHonoBounded(emulateAnswers));
    const bareServe = await start(startBare(serveAnswers));
    for (const [server, file] of [
      [bare, emulateAnswers],
      [hono, emulateAnswers],
      [honoBounded, emulateAnswers],
      [bareServe, serveAnswers],
    ])
      await checkAnswers(server.url, file);
    const plain = await writeLoad(m.dir, 'features', [FEATURES]);
    // The requests with credentials go to bare node:http too: it ignores them, but wrk sends them and the kernel carries them.
    const withBearer = await writeLoad(m.dir, 'features-bearer', [FEATURES], bearer);
    const withBasic = await writeLoad(m.dir, 'features-basic', [FEATURES], basic);
    const scrapes = await writeLoad(m.dir, 'metrics', [METRICS]);
    const contenders = [
      { key: 'bare', label: "bare node:http (emulate's bytes)", url: bare.url, load: plain },
      { key: 'hono', label: 'hono one-route', url: hono.url, load: plain },
      { key: 'honoBounded', label: "hono one-route, chutebox's heap bound", url: honoBounded.url, load: plain },
      { key: 'emulate', label: 'emulate --no-auth', url: noAuth.url, load: plain },
      { key: 'bareBearer', label: 'bare node:http, Bearer requests', url: bare.url, load: withBearer },
      { key: 'bearer', label: 'emulate, Bearer token', url: auth.url, load: withBearer },
      { key: 'bareBasic', label: 'bare node:http, Basic requests', url: bare.url, load: withBasic },
      { key: 'basic', label: 'emulate, Basic paradrop:', url: auth.url, load: withBasic },
      { key: 'bareServe', label: "bare node:http (serve's bytes)", url: bareServe.url, load: plain },
      { key: 'serve', label: 'serve, fresh state dir', url: serve.url, load: plain },
      { key: 'metrics', label: `emulate --no-auth, GET ${METRICS} (scrapes)`, url: noAuth.url, load: scrapes },
    ];
    const runs = await interleaved(contenders, opts);
    const rps = (key) => rpsOf(runs, key);
    const ratios = {
      emulate: ratio('emulate --no-auth ÷ bare node', rps('emulate'), rps('bare'), goal('≥', 0.85)),
      bearer: ratio('emulate Bearer ÷ bare node (same requests)', rps('bearer'), rps('bareBearer'), goal('≥', 0.75)),
      basic: ratio('emulate Basic ÷ bare node (same requests)', rps('basic'), rps('bareBasic'), goal('≥', 0.7)),
      serve: ratio('serve ÷ bare node', rps('serve'), rps('bareServe'), goal('≥', 0.85)),
      hono: ratio('hono one-route ÷ bare node', rps('hono'), rps('bare')),
      'emulate/hono': ratio('emulate --no-auth ÷ hono', rps('emulate'), rps('hono')),
      'bearer/hono': ratio('emulate Bearer ÷ hono', rps('bearer'), rps('hono')),
      'basic/hono': ratio('emulate Basic ÷ hono', rps('basic'), rps('hono')),
      'serve/hono': ratio('serve ÷ hono', rps('serve'), rps('hono')),
      honoBounded: ratio("hono one-route with chutebox's heap bound ÷ bare node", rps('honoBounded'), rps('bare')),
      'emulate/honoBounded': ratio("emulate --no-auth ÷ hono with chutebox's heap bound", rps('emulate'), rps('honoBounded')),
      'serve/honoBounded': ratio("serve ÷ hono with chutebox's heap bound", rps('serve'), rps('honoBounded')),
      'metrics/emulate': ratio(`emulate: scrapes of ${METRICS} ÷ GET features, per second`, rps('metrics'), rps('emulate')),
    };
    printRates(contenders, runs);
    console.log('');
    printRatios(ratios, previous?.ratios);
    console.log(
      "(hono rows: information; chutebox is to be no slower than the bare framework. Bare node:http and the first hono run with Node's default heap, chutebox and the bounded hono with the launcher's: docs/decisions/0018. " +
        `The scrape row is information: what a scrape costs, with its p99 ${ms(median(runs.metrics.map((r) => r.p99ms)))} at ${CONNECTIONS} connections: docs/decisions/0046)`,
    );
    return { contenders: Object.fromEntries(contenders.map((c) => [c.key, { label: c.label, runs: stored(runs[c.key]) }])), ratios };
  });
}

/**
 * Group 2: the read mix (every GET endpoint in turn) on emulate --no-auth and on serve (a state dir
 * with one chute on stand-in tools), each against bare node:http answering its bytes. Answers the
 * group's figures and, for the memory group, `mix`: each mix's paths, answers file and wrk load.
 */
export async function mixGroup({ m, opts, previous }) {
  return withServers(async (start) => {
    const emulate = await start(startEmulate(m));
    // The same emulator with its network standing still: what the living network costs the mix.
    const still = await start(startEmulate(m, { still: true }));
    const serve = await start(startServe(m, { withChute: true }));
    const mix = {};
    for (const [key, server] of [
      ['emulate', emulate],
      ['serve', serve],
    ]) {
      const { paths, skipped } = await mixPaths(server.url);
      const answers = path.join(m.dir, `mix-${key}.json`);
      const captured = await capture(server.url, paths, {}, answers);
      mix[key] = {
        paths,
        skipped,
        answers,
        load: await writeLoad(m.dir, `mix-${key}`, paths),
        loadIfNoneMatch: await writeLoad(
          m.dir,
          `mix-${key}-if-none-match`,
          paths,
          {},
          paths.map((p) => captured[p].etag),
        ),
        bytes: Object.fromEntries(Object.entries(captured).map(([p, a]) => [p, a.bytes])),
      };
      mix[key].singleMs = await timeEach(server.url, paths);
    }
    console.log(`\n2. Read mix: ${mix.emulate.paths.length} GET paths in turn, wrk -t1 -c${CONNECTIONS} -d${opts.seconds}s, ${opts.rounds} interleaved rounds`);
    console.log(wrap(`paths (emulate, under /api/v1): ${mix.emulate.paths.map((p) => p.replace('/api/v1', '')).join(' ')}`));
    for (const key of ['emulate', 'serve']) {
      if (mix[key].skipped.length > 0) console.log(`   left out on ${key} (no value for a parameter, or a feature it lacks): ${mix[key].skipped.join(', ')}`);
    }
    for (const key of ['emulate', 'serve']) {
      const slowest = Object.entries(mix[key].singleMs)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 4);
      console.log(
        `   slowest single GETs on ${key} (median of 20, one at a time): ${slowest.map(([p, t]) => `${p.replace(/.*\/api\/v1/, '')} ${t.toFixed(1)} ms`).join(', ')}`,
      );
    }
    const bare = await start(startBare(mix.emulate.answers));
    const bareServe = await start(startBare(mix.serve.answers));
    await checkAnswers(bare.url, mix.emulate.answers);
    await checkAnswers(bareServe.url, mix.serve.answers);
    const contenders = [
      { key: 'bare', label: "bare node:http (emulate's bytes)", url: bare.url, load: mix.emulate.load },
      { key: 'emulate', label: 'emulate --no-auth', url: emulate.url, load: mix.emulate.load },
      { key: 'emulateStill', label: 'emulate --no-auth --still', url: still.url, load: mix.emulate.load },
      { key: 'bareServe', label: "bare node:http (serve's bytes)", url: bareServe.url, load: mix.serve.load },
      { key: 'serve', label: 'serve, one chute on stand-in tools', url: serve.url, load: mix.serve.load },
      { key: 'emulateIfNoneMatch', label: 'emulate --no-auth, If-None-Match (304s)', url: emulate.url, load: mix.emulate.loadIfNoneMatch },
      { key: 'serveIfNoneMatch', label: 'serve, If-None-Match (304s)', url: serve.url, load: mix.serve.loadIfNoneMatch },
    ];
    const runs = await interleaved(contenders, opts);
    const ratios = {
      emulate: ratio('emulate --no-auth ÷ bare node', rpsOf(runs, 'emulate'), rpsOf(runs, 'bare'), goal('≥', 0.3)),
      emulateStill: ratio('emulate --no-auth --still ÷ bare node', rpsOf(runs, 'emulateStill'), rpsOf(runs, 'bare')),
      living: ratio('emulate (living network) ÷ emulate --still', rpsOf(runs, 'emulate'), rpsOf(runs, 'emulateStill')),
      serve: ratio('serve ÷ bare node', rpsOf(runs, 'serve'), rpsOf(runs, 'bareServe')),
      emulateIfNoneMatch: ratio('emulate --no-auth with If-None-Match ÷ bare node (whole bodies)', rpsOf(runs, 'emulateIfNoneMatch'), rpsOf(runs, 'bare')),
      serveIfNoneMatch: ratio('serve with If-None-Match ÷ bare node (whole bodies)', rpsOf(runs, 'serveIfNoneMatch'), rpsOf(runs, 'bareServe')),
    };
    printRates(contenders, runs);
    console.log('');
    printRatios(ratios, previous?.ratios);
    const latency = contenders.map((c) => `${c.label} ${ms(median(runs[c.key].map((r) => r.p99ms)))}`).join(', ');
    console.log(`(p99 latency, median of the rounds: ${latency})`);
    const figures = {
      paths: mix.emulate.paths,
      skipped: mix.emulate.skipped,
      servePaths: mix.serve.paths,
      singleMs: { emulate: mix.emulate.singleMs, serve: mix.serve.singleMs },
    };
    return {
      figures: { ...figures, contenders: Object.fromEntries(contenders.map((c) => [c.key, { label: c.label, runs: stored(runs[c.key]) }])), ratios },
      mix,
    };
  });
}
