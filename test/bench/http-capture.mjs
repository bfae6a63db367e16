// The read mix of test/bench/http.mjs: every GET route of dist/manifest.json with its parameters
// filled in from what the server under test holds, and the answers captured for the baselines.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { root } from './http-procs.mjs';

/** The account whose SSH keys the mix reads. */
const USER = 'paradrop';

/** GET `url` and answers `{ status, contentType, etag, body (Buffer) }`. */
async function get(url, headers) {
  const res = await fetch(url, { headers });
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', etag: res.headers.get('etag'), body: Buffer.from(await res.arrayBuffer()) };
}

/** GET `url` as JSON; throws naming the path unless it answers 200. */
async function getJson(base, endpoint, headers) {
  const answer = await get(`${base}${endpoint}`, headers);
  if (answer.status !== 200) throw new Error(`GET ${endpoint} answered ${answer.status}: ${answer.body.toString().slice(0, 300)}`);
  return JSON.parse(answer.body.toString());
}

/**
 * The values of the path parameters on the server at `base`: the first chute, its first network that
 * lists stations (a WiFi access point), that network's first station, the first change (or none).
 */
async function discover(base, headers) {
  const chutes = await getJson(base, '/api/v1/chutes', headers);
  if (chutes.length === 0) throw new Error('GET /api/v1/chutes answered no chute: the read mix needs one');
  const chute = chutes[0].name;
  const networks = await getJson(base, `/api/v1/chutes/${chute}/networks`, headers);
  for (const { name: network } of networks) {
    const answer = await get(`${base}/api/v1/chutes/${chute}/networks/${network}/stations`, headers);
    if (answer.status !== 200) continue;
    const stations = JSON.parse(answer.body.toString());
    if (stations.length > 0) {
      const changes = await getJson(base, '/api/v1/changes', headers);
      return { chute, network, mac: stations[0].mac_addr, user: USER, id: changes[0]?.id };
    }
  }
  throw new Error(`no network of chute ${chute} lists stations (${networks.map((n) => n.name).join(', ')})`);
}

/**
 * The concrete paths of the read mix on the server at `base`: each GET route of dist/manifest.json
 * on its path (not its aliases, the same function again), in manifest order, parameters filled in. Answers `{ paths, skipped }`; a route whose
 * parameter has no value here (`/changes/:id` with no change), or of a feature the device lacks (the
 * audio routes where `GET /api/v1/info/features` lists no `audio`), is skipped, and named in `skipped`.
 */
export async function mixPaths(base, headers = {}) {
  const manifest = JSON.parse(await readFile(path.join(root, 'dist/manifest.json'), 'utf8'));
  const values = await discover(base, headers);
  const audio = (await getJson(base, '/api/v1/info/features', headers)).includes('audio');
  const paths = [];
  const skipped = [];
  for (const fn of manifest.functions) {
    if (fn.method !== 'GET') continue;
    if (!audio && fn.path.startsWith('/api/v1/audio/')) {
      skipped.push(fn.path);
      continue;
    }
    const names = [...fn.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
    const unknown = names.filter((name) => !(name in values));
    if (unknown.length > 0) throw new Error(`the bench does not know how to fill :${unknown.join(', :')} of GET ${fn.path}: teach test/bench/http-capture.mjs`);
    if (names.some((name) => values[name] === undefined)) {
      skipped.push(fn.path);
      continue;
    }
    paths.push(fn.path.replace(/:(\w+)/g, (_, name) => encodeURIComponent(values[name]).replaceAll('%3A', ':')));
  }
  return { paths, skipped };
}

/**
 * GETs each path once from the server at `base` and writes what it answered (status, content-type,
 * body as base64) to `file`, for test/bench/baseline-node.mjs. Every path must answer 200.
 */
export async function capture(base, paths, headers, file) {
  const answers = {};
  const failed = [];
  for (const endpoint of paths) {
    const answer = await get(`${base}${endpoint}`, headers);
    if (answer.status !== 200) failed.push(`GET ${endpoint} answered ${answer.status}: ${answer.body.toString().slice(0, 300)}`);
    answers[endpoint] = {
      status: answer.status,
      contentType: answer.contentType,
      etag: answer.etag,
      body: answer.body.toString('base64'),
      bytes: answer.body.length,
    };
  }
  if (failed.length > 0) throw new Error(`the capture from ${base} failed:\n  ${failed.join('\n  ')}`);
  await writeFile(file, JSON.stringify(answers));
  return answers;
}

/** Checks that the server at `base` answers each path of `file` with the captured status, content-type and bytes. */
export async function checkAnswers(base, file, headers = {}) {
  const answers = JSON.parse(await readFile(file, 'utf8'));
  for (const [endpoint, want] of Object.entries(answers)) {
    const got = await get(`${base}${endpoint}`, headers);
    if (got.status !== want.status || got.contentType !== want.contentType || got.body.toString('base64') !== want.body) {
      throw new Error(
        `${base}${endpoint} answered ${got.status} ${got.contentType} ${got.body.length} bytes, not the captured ${want.status} ${want.contentType} ${want.bytes} bytes`,
      );
    }
  }
}

/** The median time of `count` GETs of each path, one at a time, in ms: `{ <path>: ms }`. */
export async function timeEach(base, paths, headers = {}, count = 20) {
  const result = {};
  for (const endpoint of paths) {
    const took = [];
    for (let i = 0; i < count; i++) {
      const t0 = performance.now();
      await (await fetch(`${base}${endpoint}`, { headers })).arrayBuffer();
      took.push(performance.now() - t0);
    }
    took.sort((a, b) => a - b);
    result[endpoint] = took[count >> 1];
  }
  return result;
}
