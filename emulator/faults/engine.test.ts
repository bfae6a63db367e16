import { describe, expect, it } from 'vitest';
import { HttpProblem } from '../../functions/core/problem.ts';
import { STATE_LIMITS } from '../state-limits.ts';
import { faultEngine, type FaultEngine, type MetRequest } from './engine.ts';
import type { Operations } from './match.ts';
import type { FaultRuleInput } from './rule.ts';

const STATIONS = '/api/v1/chutes/*/networks/*/stations';
const OPERATIONS: Operations = new Map([['networks-stations-get', { method: 'GET', path: '/api/v1/chutes/{chute}/networks/{network}/stations' }]]);

/** An engine on a clock the test sets, with the API's stations operation. */
function engine(options: { seed?: number } = {}): FaultEngine & { clock: { elapsed: number } } {
  const clock = { elapsed: 0 };
  const seed = options.seed;
  return Object.assign(
    faultEngine({ ...(seed === undefined ? {} : { seed: () => seed }), elapsedMs: () => clock.elapsed, operations: async () => OPERATIONS }),
    { clock },
  );
}

/** Which of `requests` meet an outcome (its rule's effect kind), one at a time. */
function fates(faults: FaultEngine, requests: readonly MetRequest[]): (string | null)[] {
  return requests.map((request) => {
    const meeting = faults.meet(request);
    meeting.done();
    return meeting.outcome?.effect.kind ?? null;
  });
}

/** 400 GETs of the stations of 20 networks, 20 of each, as a controller polls them. */
const POLLS: MetRequest[] = Array.from({ length: 400 }, (_, i) => ({ method: 'GET', path: `/api/v1/chutes/c${i % 20}/networks/n/stations` }));

const HALF: FaultRuleInput = { match: { method: 'GET', path: STATIONS }, probability: 0.5, seed: 7, effect: { status: 503 } };

/** The 422 a call refuses with: its field paths and messages. */
async function refusal(call: () => Promise<unknown>): Promise<{ status: number; errors: Record<string, string> }> {
  const error = await call().then(
    () => null,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof HttpProblem)) throw new Error(`not refused with a problem: ${String(error)}`);
  return { status: error.status, errors: Object.fromEntries((error.errors ?? []).map((entry) => [entry.path, entry.message])) };
}

describe('a fault rule with a probability', () => {
  it('fails about half of 400 requests at 0.5, the same ones again with the same seed, others with another', async () => {
    const first = engine();
    await first.add(HALF);
    const failed = fates(first, POLLS);
    const count = failed.filter((fate) => fate === 'status').length;
    expect(count).toBeGreaterThanOrEqual(160);
    expect(count).toBeLessThanOrEqual(240);

    const again = engine();
    await again.add(HALF);
    expect(fates(again, POLLS)).toEqual(failed);

    const other = engine();
    await other.add({ ...HALF, seed: 8 });
    const otherFates = fates(other, POLLS);
    expect(otherFates).not.toEqual(failed);
    expect(otherFates.filter((fate) => fate === 'status').length).toBeGreaterThanOrEqual(160);
  });

  it('takes the emulator’s seed when it gives none, and shows it', async () => {
    const faults = engine({ seed: 42 });
    expect(await faults.add({ effect: { status: 500 } })).toEqual({ id: 'rule-1', effect: { status: 500 }, probability: 1, seed: 42 });
  });

  it('gives each requests sequence its own draws: other paths between them change nothing', async () => {
    const alone = engine();
    await alone.add(HALF);
    const path = '/api/v1/chutes/c1/networks/n/stations';
    const sequence = Array.from({ length: 50 }, () => ({ method: 'GET', path }));
    const expected = fates(alone, sequence);

    const interleaved = engine();
    await interleaved.add(HALF);
    const seen = sequence.flatMap((request, i) =>
      fates(interleaved, [{ method: 'GET', path: `/api/v1/chutes/other${i}/networks/n/stations` }, request]).slice(1),
    );
    expect(seen).toEqual(expected);
  });

  it('gives a request with a fault key the same fate whatever else was met before', async () => {
    const keys = Array.from({ length: 100 }, (_, i) => ({ method: 'GET', path: '/api/v1/chutes/c/networks/n/stations', key: `poll-${i}` }));
    const first = engine();
    await first.add(HALF);
    const expected = fates(first, keys);
    expect(new Set(expected).size).toBe(2);

    const shuffled = engine();
    await shuffled.add(HALF);
    fates(shuffled, POLLS.slice(0, 37));
    const reversed = fates(shuffled, [...keys].reverse()).reverse();
    expect(reversed).toEqual(expected);
  });
});

describe('which rule a request meets', () => {
  it('matches by method, path pattern, operation, chute, network and station', async () => {
    const faults = engine();
    await faults.add({ match: { operation: 'networks-stations-get', chute: 'hotspot', network: 'guest' }, effect: { status: 502 } });
    await faults.add({ match: { method: 'DELETE', path: '/api/v1/**', station: 'AA:BB:CC:DD:EE:FF' }, effect: { status: 504 } });
    const status = (method: string, path: string) => faults.meet({ method, path }).outcome?.effect;
    expect(status('GET', '/api/v1/chutes/hotspot/networks/guest/stations')).toEqual({ kind: 'status', status: 502 });
    expect(status('GET', '/api/v1/chutes/hotspot/networks/guest/stations/')).toEqual({ kind: 'status', status: 502 });
    expect(status('GET', '/api/v1/chutes/hotspot/networks/wifi/stations')).toBeUndefined();
    expect(status('POST', '/api/v1/chutes/hotspot/networks/guest/stations')).toBeUndefined();
    expect(status('DELETE', '/api/v1/chutes/a/networks/b/stations/aa:bb:cc:dd:ee:ff')).toEqual({ kind: 'status', status: 504 });
    expect(status('DELETE', '/api/v1/chutes/a/networks/b/stations/aa:bb:cc:dd:ee:00')).toBeUndefined();
  });

  it('takes the delay of the first latency rule that fires and the outcome of the first other rule', async () => {
    const faults = engine();
    await faults.add({ effect: { latency: { distribution: 'fixed', ms: 30 } } });
    await faults.add({ effect: { latency: { distribution: 'fixed', ms: 90 } } });
    await faults.add({ probability: 0, effect: { status: 500 } });
    await faults.add({ effect: { fault: 'empty-response' } });
    await faults.add({ effect: { status: 503 } });
    const meeting = faults.meet({ method: 'GET', path: '/api/v1/chutes' });
    expect(meeting).toMatchObject({ latencyMs: 30, outcome: { rule: 'rule-4', effect: { kind: 'fault', fault: 'empty-response' } } });
  });

  it('fires a rule with a count at most that many times', async () => {
    const faults = engine();
    await faults.add({ count: 3, effect: { status: 503 } });
    expect(fates(faults, POLLS.slice(0, 6))).toEqual(['status', 'status', 'status', null, null, null]);
  });

  it('fires a rule in its window of emulated time only', async () => {
    const faults = engine();
    await faults.add({ window: { fromMs: 1000, untilMs: 2000 }, effect: { status: 503 } });
    const at = (elapsed: number) => {
      faults.clock.elapsed = elapsed;
      return fates(faults, POLLS.slice(0, 1))[0];
    };
    expect([at(0), at(999), at(1000), at(1999), at(2000)]).toEqual([null, null, 'status', 'status', null]);
  });

  it('leaves a request to the API when no rule is held', async () => {
    const faults = engine();
    expect(faults.meet({ method: 'GET', path: '/api/v1/chutes' })).toMatchObject({ latencyMs: 0, outcome: null });
  });
});

describe('latency', () => {
  /** The delays a rule draws for 2000 requests. */
  async function delays(latency: object): Promise<number[]> {
    const faults = engine();
    await faults.add({ effect: { latency } });
    return Array.from({ length: 2000 }, (_, i) => faults.meet({ method: 'GET', path: '/', key: String(i) }).latencyMs);
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

  it('draws a lognormal delay whose median is the one set, within its maximum', async () => {
    const drawn = await delays({ distribution: 'lognormal', medianMs: 200, sigma: 0.3, maxMs: 400 });
    expect(median(drawn)).toBeGreaterThanOrEqual(194);
    expect(median(drawn)).toBeLessThanOrEqual(206);
    expect(Math.max(...drawn)).toBe(400);
    expect(Math.min(...drawn)).toBeGreaterThan(50);
  });

  it('draws a uniform delay over its range, and a fixed one exactly', async () => {
    const drawn = await delays({ distribution: 'uniform', minMs: 100, maxMs: 300 });
    expect(Math.min(...drawn)).toBeGreaterThanOrEqual(100);
    expect(Math.max(...drawn)).toBeLessThanOrEqual(300);
    expect(median(drawn)).toBeGreaterThan(190);
    expect(median(drawn)).toBeLessThan(210);
    expect(new Set(await delays({ distribution: 'fixed', ms: 75 }))).toEqual(new Set([75]));
  });
});

describe('device faults', () => {
  it('hold for the whole device within their window, as activeDeviceFaults answers them', async () => {
    const faults = engine();
    faults.clock.elapsed = 500;
    await faults.add({ device: 'hostapd-down', chute: 'hello-world', network: 'wifi', window: { untilMs: 1000 } });
    expect(faults.activeDeviceFaults()).toEqual([{ rule: 'rule-1', fault: { device: 'hostapd-down', chute: 'hello-world', network: 'wifi' }, sinceMs: 500 }]);
    faults.clock.elapsed = 1000;
    expect(faults.activeDeviceFaults()).toEqual([]);
  });

  it('hold for `count` requests, until the last of them is answered', async () => {
    const faults = engine();
    await faults.add({ device: 'disk-full', count: 2 });
    const first = faults.meet(POLLS[0]!);
    first.done();
    const second = faults.meet(POLLS[1]!);
    expect(faults.activeDeviceFaults()).toHaveLength(1);
    second.done();
    expect(faults.activeDeviceFaults()).toEqual([]);
  });

  it('happen or not as their seed draws at their probability', async () => {
    const held = [];
    for (let seed = 0; seed < 200; seed++) {
      const faults = engine();
      await faults.add({ device: 'reboot', seconds: 10, probability: 0.25, seed });
      held.push(faults.activeDeviceFaults().length);
    }
    const happened = held.filter((count) => count === 1).length;
    expect(happened).toBeGreaterThan(30);
    expect(happened).toBeLessThan(70);
  });
});

describe('rules that do not check', () => {
  it('are refused with a 422 naming each field, and nothing is added', async () => {
    const faults = engine();
    expect(
      await refusal(() =>
        faults.add({
          match: { method: 'get', path: 'chutes', station: 'nope' },
          probability: 2,
          effect: { status: 200, latency: { distribution: 'fixed', ms: 1 } },
        }),
      ),
    ).toEqual({
      status: 422,
      errors: {
        'match.method': 'must be an HTTP method in capitals, such as GET',
        'match.path': 'must be a path pattern such as /api/v1/chutes/*/networks/*/stations, 512 characters at most',
        'match.station': 'must be a MAC address such as 02:00:00:aa:bb:cc',
        probability: 'Too big: expected number to be <=1',
        'effect.status': 'Too small: expected number to be >=400',
        'effect.latency': 'is a second effect beside status: a rule has one effect',
      },
    });
    expect((await refusal(() => faults.add({ effect: { status: 503, latency: { distribution: 'fixed', ms: 1 } } }))).errors).toEqual({
      'effect.latency': 'is a second effect beside status: a rule has one effect',
    });
    expect((await refusal(() => faults.add({ effect: {}, chute: 'a' }))).errors).toEqual({
      effect: 'must hold one effect: status, latency, fault, stream',
      chute: 'goes with a device fault only: match an HTTP rule with match.chute, match.network',
    });
    expect((await refusal(() => faults.add({ effect: { fault: 'truncated-body', durationMs: 10 } }))).errors).toEqual({
      'effect.durationMs': 'goes with the slow-body fault only',
    });
    expect((await refusal(() => faults.add({ effect: { stream: 'drop', afterMs: 1, afterMessages: 2, detail: 'x' } }))).errors).toEqual({
      'effect.detail': 'goes with status only',
      'effect.afterMessages': 'is a second trigger beside afterMs: give one',
    });
    expect((await refusal(() => faults.add({ effect: { latency: { distribution: 'gamma' } } }))).errors).toEqual({
      'effect.latency.distribution': 'must be fixed (ms), uniform (minMs, maxMs) or lognormal (medianMs, sigma, maxMs)',
    });
    expect((await refusal(() => faults.add({ device: 'hostapd-down', match: { path: '/' }, window: { fromMs: 5, untilMs: 5 } }))).errors).toEqual({
      match: 'goes with an effect only: a device fault holds for the whole device',
      'window.untilMs': 'must be after fromMs',
    });
    expect((await refusal(() => faults.add({ match: { operation: 'nothing-get' }, effect: { status: 503 } }))).errors).toEqual({
      'match.operation': 'is not an operationId of this API (GET /api/v1/openapi.json lists them)',
    });
    expect(Object.entries((await refusal(() => faults.add(JSON.parse('{"effect": {"status": 503}, "__proto__": {"x": 1}}')))).errors)).toEqual([
      ['__proto__', "must not be a key: __proto__, constructor and prototype reach an object's prototype"],
    ]);
    expect(await faults.list()).toEqual([]);
  });

  it('are refused beyond the limit, and an id given twice with 409', async () => {
    const faults = engine();
    await faults.addAll(
      Array.from({ length: STATE_LIMITS.faultRules - 1 }, () => ({ effect: { status: 503 } })),
      'rules',
    );
    await faults.add({ id: 'last', effect: { status: 503 } });
    expect(await refusal(() => faults.add({ effect: { status: 503 } }))).toMatchObject({ status: 422 });
    await faults.remove('last');
    expect(await refusal(() => faults.add({ id: 'rule-3', effect: { status: 503 } }))).toMatchObject({ status: 409, errors: {} });
    expect(await refusal(() => faults.addAll([{ effect: { status: 503 } }, { effect: { status: 1 } }], 'body'))).toEqual({
      status: 422,
      errors: { 'body[1].effect.status': 'Too small: expected number to be >=400' },
    });
    expect(await faults.list()).toHaveLength(STATE_LIMITS.faultRules - 1);
  });
});

describe('a patch of a rule', () => {
  it('merges fields (null removes one), keeps the rule’s counts, and cannot change its id', async () => {
    const faults = engine();
    await faults.add({ id: 'slow', count: 2, match: { path: '/x' }, effect: { status: 503, detail: 'busy' } });
    fates(faults, [{ method: 'GET', path: '/x' }]);
    expect(await faults.patch('slow', { match: { method: 'GET' }, effect: { detail: null, status: 500 } })).toEqual({
      id: 'slow',
      count: 2,
      match: { path: '/x', method: 'GET' },
      effect: { status: 500 },
      probability: 1,
      seed: 1,
    });
    expect(
      fates(
        faults,
        [0, 1].map(() => ({ method: 'GET', path: '/x' })),
      ),
    ).toEqual(['status', null]);
    expect((await refusal(() => faults.patch('slow', { id: 'fast' }))).errors).toEqual({ id: "is the rule's name, slow: a patch cannot change it" });
    expect((await refusal(() => faults.patch('slow', { effect: { latency: { distribution: 'fixed', ms: 1 } } }))).errors).toEqual({
      'effect.latency': 'is a second effect beside status: a rule has one effect',
    });
    expect(await refusal(() => faults.patch('nobody', {}))).toMatchObject({ status: 404 });
  });
});

describe('the rules in an emulator state', () => {
  it('are restored with their counts, and a reset goes back to the rules as loaded', async () => {
    const faults = engine();
    await faults.add({ id: 'loaded', effect: { status: 503 } });
    faults.loaded();
    await faults.add({ count: 2, effect: { status: 500 } });
    fates(faults, POLLS.slice(0, 3));
    const saved = faults.snapshot();
    expect(saved.counters['rule-1']).toMatchObject({ hits: 0, sequences: { 'GET /api/v1/chutes/c0/networks/n/stations': 1 } });

    const other = engine();
    other.restore(await other.prepare(JSON.parse(JSON.stringify(saved)), 'faults'));
    expect(other.snapshot()).toEqual(saved);
    other.reset();
    expect(await other.list()).toEqual([]);

    faults.reset();
    expect(await faults.list()).toEqual([{ id: 'loaded', effect: { status: 503 }, probability: 1, seed: 1 }]);
    expect(faults.snapshot().counters.loaded).toMatchObject({ hits: 0 });
  });

  it('are listed as they were, field for field in the same order, once restored', async () => {
    const faults = engine();
    await faults.add({ match: { path: STATIONS }, count: 3, effect: { status: 503 } });
    await faults.add({ ...HALF, window: { fromMs: 10 } });
    const other = engine();
    other.restore(await other.prepare(JSON.parse(JSON.stringify(faults.snapshot())), 'faults'));
    expect(JSON.stringify(await other.list())).toBe(JSON.stringify(await faults.list()));
  });

  it('are refused when an id repeats or counters name no rule', async () => {
    const faults = engine();
    const state = {
      rules: [
        { id: 'a', effect: { status: 503 } },
        { id: 'a', effect: { status: 503 } },
      ],
      nextId: 1,
      counters: { b: { hits: 0, addedMs: 0, sequences: {} } },
    };
    expect((await refusal(() => faults.prepare(state, 'body.faults'))).errors).toEqual({
      'body.faults.rules[1].id': 'names rule a again',
      'body.faults.counters.b': 'counts for no rule of rules',
    });
  });
});
