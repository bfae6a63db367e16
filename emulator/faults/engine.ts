import { HttpProblem, inputPath, nestedPath, type InputError } from '../../functions/core/problem.ts';
import { invalidInput, validate } from '../../functions/core/validate.ts';
import { DEFAULT_SEED, draw, lognormal, type DrawParts } from '../seeded.ts';
import { StateDocumentSchema, STATE_LIMITS } from '../state-limits.ts';
import type { DeviceFault } from './device-fault.ts';
import { requestTest, type FaultRequest, type Operations, type RequestTest } from './match.ts';
import { deviceFault, FaultRuleSchema, httpEffect, type FaultRule, type FaultRuleInput, type FaultWindow, type HttpEffect, type Latency } from './rule.ts';
import type { FaultCounters, FaultsState } from './state.ts';

/** How a fault engine reads time, its default seed and the API's operations. */
export interface FaultEngineOptions {
  /** The seed of a rule that gives none, asked as the rule is added (the emulator's, which a restore may change); default `DEFAULT_SEED`. */
  seed?: () => number;
  /** Emulated time since the emulator started, in ms: what a rule's `window` is read on. */
  elapsedMs: () => number;
  /** The API's operations by operationId, for `match.operation`: asked when a rule names one. */
  operations: () => Promise<Operations>;
}

/** A request as the engine meets it: its method and path, and its `Chutebox-Fault-Key` header if it has one. */
export interface MetRequest extends FaultRequest {
  key?: string;
}

/** What a request meets: a delay, then at most one outcome; `done()` once it is answered. */
export interface Meeting {
  latencyMs: number;
  outcome: { rule: string; effect: Exclude<HttpEffect, { kind: 'latency' }> } | null;
  done(): void;
}

/** A device fault that holds now: its rule, the fault, and since when (emulated ms since the start). */
export interface ActiveDeviceFault {
  rule: string;
  fault: DeviceFault;
  sinceMs: number;
}

/** The rules, in-process: what `/_chutebox/faults` serves, `startEmulator` and the msw handlers give. */
export interface FaultRules {
  /** Adds a rule and answers it as held (its id, probability and seed filled in). @throws HttpProblem 422 naming each bad field, 409 for an id taken. */
  add(rule: FaultRuleInput): Promise<FaultRule>;
  /** Every rule, in the order they apply. */
  list(): Promise<FaultRule[]>;
  /** Removes one rule. @throws HttpProblem 404 for an id that names none. */
  remove(id: string): Promise<void>;
  /** Removes every rule. */
  clear(): Promise<void>;
}

/** Rules made ready to hold, as a restore or a reset puts them in place. */
export interface PreparedFaults {
  nextId: number;
  rules: { ready: Ready; counters: FaultCounters }[];
}

/** A rule checked, with what applies it: its effect (null for a device fault) and its request test. */
interface Ready {
  rule: FaultRule;
  effect: HttpEffect | null;
  test: RequestTest;
}

/** A rule held, with what it counted; `inFlight`: the requests answered now that took a hit of its device fault. */
interface Held extends Ready {
  hits: number;
  addedMs: number;
  sequences: Map<string, number>;
  inFlight: number;
}

/** The longest delay a lognormal draw gives without its own `maxMs`. */
const DEFAULT_MAX_DELAY_MS = 60_000;

const NOTHING: Meeting = Object.freeze({ latencyMs: 0, outcome: null, done: () => undefined });

/**
 * The fault rules of one emulator, and how each request meets them (docs/decisions/0051-fault-rules.md).
 * Rules apply in order: a request takes the delay of the first latency rule that fires and the outcome
 * (status, connection or body fault, stream fault) of the first other rule that fires. A rule fires
 * when the request matches it, the emulated time is in its window, its `count` is not spent, and its
 * draw is below its `probability`: `draw(seed, id, key)` for a request with a `Chutebox-Fault-Key`,
 * else `draw(seed, id, method, path, n)` where `n` counts the requests of that method and path the
 * rule saw before, so that the same requests sent one at a time meet the same faults. A device fault
 * holds for the whole device while in its window, if `draw(seed, id, 'device')` is below its
 * probability, for `count` requests (each request that arrives while it holds is one).
 *
 * @example
 * const faults = faultEngine({ elapsedMs: () => device.now() - start, operations });
 * await faults.add({ match: { method: 'GET', path: '/api/v1/chutes/*' }, probability: 0.5, seed: 7, effect: { status: 503 } });
 * faults.meet({ method: 'GET', path: '/api/v1/chutes/hotspot' }); // { latencyMs: 0, outcome: { rule: 'rule-1', effect: { kind: 'status', status: 503 } } | null, done }
 */
export function faultEngine(options: FaultEngineOptions) {
  const defaultSeed = options.seed ?? (() => DEFAULT_SEED);
  let held: Held[] = [];
  let nextId = 1;
  let loaded: PreparedFaults = { nextId: 1, rules: [] };

  /** A rule checked and made ready; `at` names where it came from (`body`, `rules[0]`, `''`). */
  async function ready(value: unknown, at: string): Promise<Ready> {
    validate(StateDocumentSchema, value, at, 'the rule');
    const { id, probability = 1, seed, ...input } = validate(FaultRuleSchema, value, at, 'the rule');
    // Its fields in one order, whether given or filled in: a rule restored lists as it did.
    const rule: FaultRule = { id: id ?? '', ...input, probability, seed: seed ?? defaultSeed() };
    const name = input.match?.operation;
    return { rule, effect: httpEffect(rule), test: requestTest(input.match ?? {}, name === undefined ? undefined : await operation(name, at)) };
  }

  async function operation(name: string, at: string): Promise<{ method: string; path: string }> {
    const path = inputPath(at, ['match', 'operation']);
    let found: { method: string; path: string } | undefined;
    try {
      found = (await options.operations()).get(name);
    } catch (error) {
      throw invalidInput('the rule', [{ path, message: `cannot be looked up: ${(error as Error).message}` }]);
    }
    if (found === undefined) throw invalidInput('the rule', [{ path, message: 'is not an operationId of this API (GET /api/v1/openapi.json lists them)' }]);
    return found;
  }

  /** Adds rules checked and made ready, all or none: within the limit, each id free. */
  function hold(rules: { ready: Ready; at: string }[]): FaultRule[] {
    if (held.length + rules.length > STATE_LIMITS.faultRules) {
      const at = rules[0]?.at ?? '';
      throw invalidInput('the rules', [
        { path: at, message: `would make ${held.length + rules.length} rules: the emulator keeps at most ${STATE_LIMITS.faultRules}; delete some first` },
      ]);
    }
    const taken = new Set(held.map((one) => one.rule.id));
    for (const { ready: given } of rules) {
      if (given.rule.id !== '' && taken.has(given.rule.id)) {
        throw new HttpProblem(409, `a rule ${given.rule.id} exists already: change it with PATCH /_chutebox/faults/${given.rule.id}, or delete it first`);
      }
      taken.add(given.rule.id);
    }
    const addedMs = Math.max(0, Math.floor(options.elapsedMs()));
    for (const { ready: given } of rules) {
      if (given.rule.id === '') given.rule.id = freeId(taken);
      held.push({ ...given, hits: 0, addedMs, sequences: new Map(), inFlight: 0 });
    }
    return rules.map(({ ready: given }) => copy(given.rule));
  }

  function freeId(taken: Set<string>): string {
    let id = `rule-${nextId++}`;
    while (taken.has(id)) id = `rule-${nextId++}`;
    taken.add(id);
    return id;
  }

  function find(id: string): Held {
    const found = held.find((one) => one.rule.id === id);
    if (found === undefined) throw new HttpProblem(404, `no fault rule ${id}: GET /_chutebox/faults lists them`);
    return found;
  }

  /** The parts of a request's draws for `rule`: its key, or its method, path and how many of those the rule saw before. */
  function partsOf(rule: Held, request: MetRequest): DrawParts {
    if (request.key !== undefined) return [request.key];
    const sequence = `${request.method} ${request.path}`;
    const n = rule.sequences.get(sequence) ?? 0;
    if (n === 0 && rule.sequences.size >= STATE_LIMITS.faultSequences) rule.sequences.delete(rule.sequences.keys().next().value!);
    rule.sequences.set(sequence, n + 1);
    return [request.method, request.path, n];
  }

  /** Whether an HTTP rule fires for a request whose draws are `parts`. */
  function fires(rule: Held, elapsed: number, parts: DrawParts): boolean {
    const { count, probability, seed, id, window } = rule.rule;
    return inWindow(window, elapsed) && (count === undefined || rule.hits < count) && draw(seed, id, ...parts) < probability;
  }

  /** Whether a device fault holds now. */
  function holds(rule: Held, elapsed: number): boolean {
    const { count, probability, seed, id, window } = rule.rule;
    return inWindow(window, elapsed) && draw(seed, id, 'device') < probability && (count === undefined || rule.hits < count || rule.inFlight > 0);
  }

  /** Rules made ready from a state, each checked; 422 naming each field of `at` that does not fit. */
  async function prepare(state: FaultsState, at: string): Promise<PreparedFaults> {
    const errors: InputError[] = [];
    const rules: PreparedFaults['rules'] = [];
    const ids = new Set<string>();
    for (const [i, value] of state.rules.entries()) {
      const where = inputPath(at, ['rules', i]);
      try {
        const given = await ready(value, where);
        const { id } = given.rule;
        if (id === '') errors.push({ path: nestedPath(where, 'id'), message: 'is required: a rule of a state has its id' });
        else if (ids.has(id)) errors.push({ path: nestedPath(where, 'id'), message: `names rule ${id} again` });
        ids.add(id);
        rules.push({ ready: given, counters: state.counters[id] ?? { hits: 0, addedMs: 0, sequences: {} } });
      } catch (error) {
        errors.push(...violations(error));
      }
    }
    for (const id of Object.keys(state.counters)) {
      if (!ids.has(id)) errors.push({ path: inputPath(at, ['counters', id]), message: 'counts for no rule of rules' });
    }
    if (errors.length > 0) throw invalidInput('the state', errors);
    return { nextId: state.nextId, rules };
  }

  function restore(prepared: PreparedFaults): void {
    nextId = prepared.nextId;
    held = prepared.rules.map(({ ready: given, counters }) => ({
      ...given,
      rule: copy(given.rule),
      hits: counters.hits,
      addedMs: counters.addedMs,
      sequences: new Map(Object.entries(counters.sequences)),
      inFlight: 0,
    }));
  }

  return {
    async add(rule: unknown, at = ''): Promise<FaultRule> {
      return hold([{ ready: await ready(rule, at), at }])[0]!;
    },
    /** Adds every rule of a list, or none (LocalStack's PATCH of its faults). */
    async addAll(rules: readonly unknown[], at = ''): Promise<FaultRule[]> {
      const errors: InputError[] = [];
      const made: { ready: Ready; at: string }[] = [];
      for (const [i, rule] of rules.entries()) {
        const where = inputPath(at, [i]);
        try {
          made.push({ ready: await ready(rule, where), at: where });
        } catch (error) {
          errors.push(...violations(error));
        }
      }
      if (errors.length > 0) throw invalidInput('the rules', errors);
      return hold(made);
    },
    /** Merges `patch` into a rule (JSON merge patch, RFC 7386: null removes a field) and answers the rule; its counts go on. */
    async patch(id: string, patch: unknown, at = ''): Promise<FaultRule> {
      const rule = find(id).rule;
      validate(StateDocumentSchema, patch, at, 'the patch');
      if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
        throw invalidInput('the patch', [{ path: at, message: 'must be a mapping of the fields to change (a JSON merge patch)' }]);
      }
      const newId = (patch as { id?: unknown }).id;
      if (newId !== undefined && newId !== id)
        throw invalidInput('the patch', [{ path: nestedPath(at, 'id'), message: `is the rule's name, ${id}: a patch cannot change it` }]);
      const merged = await ready(mergePatch(rule, patch), at);
      const target = find(id);
      Object.assign(target, merged);
      return copy(target.rule);
    },
    async list(): Promise<FaultRule[]> {
      return held.map((one) => copy(one.rule));
    },
    async get(id: string): Promise<FaultRule> {
      return copy(find(id).rule);
    },
    async remove(id: string): Promise<void> {
      const found = find(id);
      held = held.filter((one) => one !== found);
    },
    async clear(): Promise<void> {
      held = [];
    },
    /** Whether any rule is held: a request meets none without a look otherwise. */
    get empty(): boolean {
      return held.length === 0;
    },
    /** What a request meets; call `done()` once it is answered. Paths below `/_chutebox/` are the caller's to leave out. */
    meet(request: MetRequest): Meeting {
      if (held.length === 0) return NOTHING;
      const elapsed = options.elapsedMs();
      let latencyMs: number | null = null;
      let outcome: Meeting['outcome'] = null;
      const holding: Held[] = [];
      for (const rule of held) {
        if (rule.effect === null) {
          if (holds(rule, elapsed) && rule.rule.count !== undefined && rule.hits < rule.rule.count) {
            rule.hits++;
            rule.inFlight++;
            holding.push(rule);
          }
          continue;
        }
        if (!rule.test(request)) continue;
        const parts = partsOf(rule, request);
        const effect = rule.effect;
        if ((effect.kind === 'latency' ? latencyMs !== null : outcome !== null) || !fires(rule, elapsed, parts)) continue;
        rule.hits++;
        const { seed, id } = rule.rule;
        if (effect.kind === 'latency') latencyMs = delay(effect.latency, (i) => draw(seed, id, ...parts, 'latency', i));
        else outcome = { rule: id, effect };
      }
      if (latencyMs === null && outcome === null && holding.length === 0) return NOTHING;
      const done = () => {
        for (const rule of holding) rule.inFlight--;
      };
      return { latencyMs: latencyMs ?? 0, outcome, done };
    },
    /** The device faults that hold now, in the order of their rules: what `faultyDevice` reads. */
    activeDeviceFaults(): ActiveDeviceFault[] {
      if (held.length === 0) return [];
      const elapsed = options.elapsedMs();
      return held.flatMap((rule) => {
        const fault = deviceFault(rule.rule);
        return fault === null || !holds(rule, elapsed) ? [] : [{ rule: rule.rule.id, fault, sinceMs: Math.max(rule.addedMs, rule.rule.window?.fromMs ?? 0) }];
      });
    },
    /** The rules and their counts, as an emulator state holds them. */
    snapshot(): FaultsState {
      return {
        rules: held.map((one) => copy(one.rule)),
        nextId,
        counters: Object.fromEntries(held.map((one) => [one.rule.id, { hits: one.hits, addedMs: one.addedMs, sequences: Object.fromEntries(one.sequences) }])),
      };
    },
    /** A state's rules checked and made ready, to `restore` once the rest of the state fits. @throws HttpProblem 422 naming each field from `at`. */
    prepare,
    restore,
    /** Back to the rules as loaded (`loaded()` marks them), their counts at 0. */
    reset(): void {
      restore(loaded);
    },
    /** Marks the rules held now as the ones a reset goes back to. */
    loaded(): void {
      loaded = { nextId, rules: held.map((one) => ({ ready: one, counters: { hits: 0, addedMs: one.addedMs, sequences: {} } })) };
    },
  };
}

export type FaultEngine = ReturnType<typeof faultEngine>;

/** Whether `elapsed` is in a rule's window (always, without one). */
function inWindow(window: FaultWindow | undefined, elapsed: number): boolean {
  return window === undefined || (elapsed >= (window.fromMs ?? 0) && (window.untilMs === undefined || elapsed < window.untilMs));
}

/** A delay drawn from `latency`, in whole ms; `u(i)` is the i-th uniform draw of the request. */
function delay(latency: Latency, u: (i: number) => number): number {
  switch (latency.distribution) {
    case 'fixed':
      return latency.ms;
    case 'uniform':
      return Math.round(latency.minMs + u(1) * (latency.maxMs - latency.minMs));
    case 'lognormal':
      return Math.round(Math.min(latency.maxMs ?? DEFAULT_MAX_DELAY_MS, lognormal(latency.medianMs, latency.sigma, u(1), u(2))));
  }
}

/** `patch` merged into `target` as RFC 7386 says: a mapping merges key by key, null removes, anything else replaces. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const merged: Record<string, unknown> = typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = mergePatch(merged[key], value);
  }
  return merged;
}

/** The violations of a 422; anything else is thrown on. */
function violations(error: unknown): InputError[] {
  if (error instanceof HttpProblem && error.status === 422) return error.errors ?? [];
  throw error;
}

function copy<T>(value: T): T {
  return structuredClone(value);
}
