import { beforeAll, describe, expect, it, vi } from 'vitest';
import { endpointModules } from '../emulator/endpoint-modules.ts';
import { bundleInvoke } from '../functions/core/bundle.ts';
import type { FunctionBundle } from '../functions/core/bundle.ts';
import type { FunctionInput } from '../functions/core/handler.ts';
import { callFunctionRaw, type EndpointModule } from './support/call-function.ts';
import { changingDevice, type DeviceChange } from './support/changing-device.ts';

/*
 * Every GET endpoint, asked again and again of one device whose sources change between requests,
 * answers what a fresh handler answers on the device as it is then: nothing is kept from before a
 * change, neither an answer nor a part of one. The GETs run as a function bundle runs them
 * (`bundleInvoke`, made once for the whole run); the fresh handler is a new instance of the
 * endpoint module (the modules are loaded again for each state of the device), so it keeps nothing.
 */

const { device, changes, params } = changingDevice();

/** Every GET endpoint module of functions/, found as the build finds them (each exports its schemas too, which `callFunctionRaw` checks). */
const getModules = async () => (await endpointModules()).filter(({ route }) => route.method === 'GET') as unknown as EndpointModule[];
const GETS = await getModules();

/** What reads nothing of the device, and so answers the same whatever the device does. */
const READS_NO_DEVICE = new Set(['/api/v1/openapi.json']);

/** Each request is sent without `Accept`, then asking for YAML (which the document endpoints answer). */
const ACCEPTS: Record<string, string>[] = [{}, { accept: 'application/yaml' }];

/**
 * The rounds: the device as it starts, then each change made twice in a row (a change made back
 * and forth comes back to where it was; one that moves on moves on again).
 */
const ROUNDS: { what: string; change?: DeviceChange }[] = [
  { what: 'nothing (the device as it starts)' },
  ...changes.flatMap((change) => [
    { what: change.what, change },
    { what: `${change.what}, again`, change },
  ]),
];

/** An answer as a client sees it: status, headers, body; not the ETag, which the bundle may add and which has tests of its own. */
interface Seen {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const seen = (status: number, headers: Readonly<Record<string, string>>, body: string): Seen => {
  const { etag: _etag, ...rest } = headers;
  return { status, headers: rest, body };
};

/** What one endpoint answered over the run. */
interface EndpointRun {
  /** The bodies a fresh handler answered: more than one when the device's changes reach the endpoint. */
  freshBodies: Set<string>;
  /** The rounds after which an answer that agreed with a fresh handler's stopped agreeing, with the `Accept` sent. */
  divergedAfter: string[];
  /** How many requests in all were answered otherwise than by a fresh handler. */
  differing: number;
  /** The first such answer, and the fresh handler's. */
  first?: { answered: Seen; fresh: Seen };
}

/** The path parameters of a route that the device names (`params`), and those it does not. */
function pathParams(path: string): { filled: Record<string, string>; missing: string[] } {
  const names = [...path.matchAll(/:(\w+)/g)].map((match) => match[1]!);
  return {
    filled: Object.fromEntries(names.filter((name) => name in params).map((name) => [name, params[name]!])),
    missing: names.filter((name) => !(name in params)),
  };
}

const runs = new Map<string, EndpointRun>(GETS.map(({ route }) => [route.path, { freshBodies: new Set(), divergedAfter: [], differing: 0 }]));

beforeAll(async () => {
  const bundles = new Map<string, FunctionBundle['invoke']>(GETS.map(({ route, handle }) => [route.path, bundleInvoke(route, handle)]));
  /** Whether the last answer to each path and `Accept` agreed with a fresh handler's. */
  const agreed = new Map<string, boolean>();
  const log = vi.spyOn(console, 'error').mockImplementation(() => {});
  try {
    for (const { what, change } of ROUNDS) {
      await change?.make();
      vi.resetModules();
      for (const fresh of await getModules()) {
        const { path } = fresh.route;
        const { filled, missing } = pathParams(path);
        if (missing.length > 0) continue;
        const run = runs.get(path)!;
        for (const headers of ACCEPTS) {
          const input: FunctionInput = { params: filled, query: {}, headers, body: undefined, text: '' };
          const out = await bundles.get(path)!(input, device);
          const answered = seen(out.status, out.headers, out.body);
          const made = await callFunctionRaw(fresh, device, { params: filled, headers });
          const expected = seen(made.status, made.headers, made.text);
          run.freshBodies.add(made.text);
          const same = JSON.stringify(answered) === JSON.stringify(expected);
          const key = `${path} ${headers.accept}`;
          if (!same && agreed.get(key) !== false) run.divergedAfter.push(`${what} (Accept: ${headers.accept ?? 'none'})`);
          if (!same) run.differing++;
          if (!same) run.first ??= { answered, fresh: expected };
          agreed.set(key, same);
        }
      }
    }
  } finally {
    log.mockRestore();
  }
});

describe('every GET answers what a fresh handler answers, while the device changes between requests', () => {
  it.each(GETS.map(({ route }) => [`${route.method} ${route.path}`, route.path]))('%s', (_name, path) => {
    expect(pathParams(path).missing, 'path parameters the test device names nothing for').toEqual([]);
    const { freshBodies, divergedAfter, differing, first } = runs.get(path)!;
    if (!READS_NO_DEVICE.has(path)) expect(freshBodies.size, 'different answers of a fresh handler: the changes reach it').toBeGreaterThan(1);
    expect.soft(divergedAfter, `the changes after which it answered otherwise than a fresh handler (${differing} requests in all)`).toEqual([]);
    if (first !== undefined) expect(first.answered, 'the first answer that differed').toEqual(first.fresh);
  });
});
