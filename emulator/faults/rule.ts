import * as z from 'zod/mini';
import { CHUTE_NAME } from '../../functions/core/device/index.ts';
import { MAC_ADDRESS } from '../../functions/chutes/params.ts';
import { DeviceFaultSchema, type DeviceFault } from './device-fault.ts';

/*
 * A fault rule as `POST /_chutebox/faults`, `emulate --faults FILE` and `startEmulator({ faults })`
 * take it (docs/emulator.md#faults, docs/decisions/0051-fault-rules.md): what it matches, how often
 * it fires, and one effect on the HTTP answer, or a device fault (`DeviceFaultSchema`).
 */

/** The longest delay, body dribble or stream wait a rule may ask for, in milliseconds. */
const MAX_DELAY_MS = 60_000;
/** The latest `afterMs` of a stream effect: a stream may stay open for a day. */
const MAX_STREAM_MS = 86_400_000;

const milliseconds = (max: number) => z.int().check(z.minimum(0), z.maximum(max));
const name = z.string().check(z.regex(CHUTE_NAME, { error: 'must be a chute or network name' }));

/** What a request must be for the rule to see it; every field given must hold, none given matches every request. */
export const FaultMatchSchema = z.strictObject({
  /** The request's method, in capitals. */
  method: z.optional(z.string().check(z.regex(/^[A-Z]{1,16}$/, { error: 'must be an HTTP method in capitals, such as GET' }))),
  /** A path pattern: `*` stands for one segment, a last `**` for any rest. */
  path: z.optional(
    z.string().check(
      z.regex(/^\/[^?#\s]{0,511}$/, { error: 'must be a path pattern such as /api/v1/chutes/*/networks/*/stations, 512 characters at most' }),
      z.refine((pattern) => !pattern.split('/').slice(0, -1).includes('**'), 'may have ** as its last segment only'),
    ),
  ),
  /** An OpenAPI operationId (`GET /api/v1/openapi.json`): its method and path. */
  operation: z.optional(z.string().check(z.regex(/^[a-z0-9]+(?:-[a-z0-9]+){0,15}$/, { error: 'must be an operationId such as networks-stations-get' }))),
  /** The chute the path names (`/api/v1/chutes/<chute>/…`, ParaDrop's `/ws/chute_logs/<chute>`). */
  chute: z.optional(name),
  /** The network the path names (`…/networks/<network>/…`). */
  network: z.optional(name),
  /** The station the path names (`…/stations/<mac>`), any case. */
  station: z.optional(z.string().check(z.regex(MAC_ADDRESS, { error: 'must be a MAC address such as 02:00:00:aa:bb:cc' }))),
});
export type FaultMatch = z.infer<typeof FaultMatchSchema>;

/** A delay drawn from a distribution, in milliseconds (WireMock's delay distributions). */
export const LatencySchema = z.discriminatedUnion(
  'distribution',
  [
    z.strictObject({ distribution: z.literal('fixed'), ms: milliseconds(MAX_DELAY_MS) }),
    z
      .strictObject({ distribution: z.literal('uniform'), minMs: milliseconds(MAX_DELAY_MS), maxMs: milliseconds(MAX_DELAY_MS) })
      .check(z.refine((range) => range.minMs <= range.maxMs, { path: ['maxMs'], message: 'must be at least minMs' })),
    z.strictObject({
      distribution: z.literal('lognormal'),
      medianMs: milliseconds(MAX_DELAY_MS),
      /** The sigma of the underlying normal distribution: 0 is always the median. */
      sigma: z.number().check(z.minimum(0), z.maximum(4)),
      /** The longest delay drawn; default `MAX_DELAY_MS`. */
      maxMs: z.optional(milliseconds(MAX_DELAY_MS)),
    }),
  ],
  {
    error: (issue) =>
      issue.code === 'invalid_union' ? 'must be fixed (ms), uniform (minMs, maxMs) or lognormal (medianMs, sigma, maxMs)' : 'must be a mapping',
  },
);
export type Latency = z.infer<typeof LatencySchema>;

/** What happens to the connection or the body, WireMock's faults and its chunked dribble. */
export const CONNECTION_FAULTS = ['connection-reset', 'empty-response', 'truncated-body', 'slow-body'] as const;
/** What happens to a stream (the events, a websocket) once it has run for `afterMs` or sent `afterMessages`. */
export const STREAM_FAULTS = ['drop', 'stall-heartbeat', 'close'] as const;

/** The kinds of effect, each one key of `FaultEffectSchema`. */
export const EFFECT_KINDS = ['status', 'latency', 'fault', 'stream'] as const;
export type EffectKind = (typeof EFFECT_KINDS)[number];

/** The fields that go with an effect's kind, and which kind each is for. */
const COMPANIONS = { detail: 'status', durationMs: 'fault', chunks: 'fault', afterMs: 'stream', afterMessages: 'stream' } as const;

/**
 * One effect: `{status, detail?}` (a problem answer), `{latency}` (then the real answer), `{fault,
 * durationMs?, chunks?}` (the connection or body) or `{stream, afterMs | afterMessages}`. One object
 * of optional fields, so that a wrong one is named itself, with a check that exactly one kind is given.
 */
export const FaultEffectSchema = z
  .strictObject({
    status: z.optional(z.int().check(z.minimum(400), z.maximum(599))),
    /** The problem's `detail`; default one that names the rule. */
    detail: z.optional(z.string().check(z.minLength(1), z.maxLength(1024))),
    latency: z.optional(LatencySchema),
    fault: z.optional(z.enum(CONNECTION_FAULTS)),
    /** How long `slow-body` takes to send the body (default 1000). */
    durationMs: z.optional(milliseconds(MAX_DELAY_MS)),
    /** In how many pieces `slow-body` sends it (default 10, never more than its bytes). */
    chunks: z.optional(z.int().check(z.minimum(1), z.maximum(1000))),
    stream: z.optional(z.enum(STREAM_FAULTS)),
    afterMs: z.optional(milliseconds(MAX_STREAM_MS)),
    afterMessages: z.optional(z.int().check(z.minimum(0), z.maximum(1_000_000))),
  })
  .check(z.superRefine(checkEffect, { when: () => true }));
export type FaultEffect = z.infer<typeof FaultEffectSchema>;

/** A time window in emulated time since the emulator started: from `fromMs` (default 0) until before `untilMs` (default never). */
export const FaultWindowSchema = z
  .strictObject({ fromMs: z.optional(milliseconds(Number.MAX_SAFE_INTEGER)), untilMs: z.optional(milliseconds(Number.MAX_SAFE_INTEGER)) })
  .check(z.refine((window) => (window.fromMs ?? 0) < (window.untilMs ?? Number.POSITIVE_INFINITY), { path: ['untilMs'], message: 'must be after fromMs' }));
export type FaultWindow = z.infer<typeof FaultWindowSchema>;

/** A rule's name: given, or made as `rule-<n>`. */
export const RULE_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/**
 * A fault rule: `match` and `effect` for an HTTP fault, or the fields of a `DeviceFault` (`device`,
 * `chute`, `network`, `radio`, `seconds`) for a device fault; either with `probability` (default 1),
 * `count` (at most this many hits), `window` and `seed` (default the emulator's).
 */
export const FaultRuleSchema = z
  .extend(z.partial(DeviceFaultSchema), {
    id: z.optional(
      z.string().check(z.regex(RULE_ID, { error: 'must be a rule id: a letter or digit, then letters, digits, _ . or -, 64 characters at most' })),
    ),
    match: z.optional(FaultMatchSchema),
    effect: z.optional(FaultEffectSchema),
    probability: z.optional(z.number().check(z.minimum(0), z.maximum(1))),
    count: z.optional(z.int().check(z.minimum(1), z.maximum(1_000_000_000))),
    window: z.optional(FaultWindowSchema),
    seed: z.optional(z.int().check(z.minimum(0), z.maximum(Number.MAX_SAFE_INTEGER))),
  })
  .check(z.superRefine(checkRule, { when: () => true }));
export type FaultRuleInput = z.input<typeof FaultRuleSchema>;

/** A rule as the emulator holds and answers it: its id, probability and seed filled in. */
export type FaultRule = z.infer<typeof FaultRuleSchema> & { id: string; probability: number; seed: number };

/** The effect of an HTTP rule, by its kind. */
export type HttpEffect =
  | { kind: 'status'; status: number; detail?: string }
  | { kind: 'latency'; latency: Latency }
  | { kind: 'fault'; fault: (typeof CONNECTION_FAULTS)[number]; durationMs: number; chunks: number }
  | { kind: 'stream'; stream: (typeof STREAM_FAULTS)[number]; afterMs?: number; afterMessages?: number };

/** A rule's effect by its kind, with the defaults of `slow-body`; null for a device fault. */
export function httpEffect(rule: FaultRule): HttpEffect | null {
  const effect = rule.effect;
  if (effect === undefined) return null;
  if (effect.status !== undefined) return { kind: 'status', status: effect.status, ...(effect.detail === undefined ? {} : { detail: effect.detail }) };
  if (effect.latency !== undefined) return { kind: 'latency', latency: effect.latency };
  if (effect.fault !== undefined) return { kind: 'fault', fault: effect.fault, durationMs: effect.durationMs ?? 1000, chunks: effect.chunks ?? 10 };
  const { afterMs, afterMessages } = effect;
  return { kind: 'stream', stream: effect.stream!, ...(afterMs === undefined ? { afterMessages: afterMessages ?? 0 } : { afterMs }) };
}

/** The device fault of a rule, as `faultyDevice` reads it; null for an HTTP rule. */
export function deviceFault(rule: FaultRule): DeviceFault | null {
  if (rule.device === undefined) return null;
  const { device, chute, network, radio, seconds } = rule;
  return {
    device,
    ...(chute === undefined ? {} : { chute }),
    ...(network === undefined ? {} : { network }),
    ...(radio === undefined ? {} : { radio }),
    ...(seconds === undefined ? {} : { seconds }),
  };
}

/** Exactly one kind of effect, each field of a kind only with it, a stream's `afterMs` or `afterMessages`. */
function checkEffect(effect: FaultEffect, context: z.core.$RefinementCtx<FaultEffect>): void {
  if (typeof effect !== 'object' || effect === null) return;
  const kinds = EFFECT_KINDS.filter((kind) => effect[kind] !== undefined);
  const issue = (path: string[], message: string) => context.addIssue({ code: 'custom', input: effect, path, message });
  if (kinds.length === 0) issue([], `must hold one effect: ${EFFECT_KINDS.join(', ')}`);
  for (const kind of kinds.slice(1)) issue([kind], `is a second effect beside ${kinds[0]}: a rule has one effect`);
  for (const [field, kind] of Object.entries(COMPANIONS)) {
    if (effect[field as keyof typeof COMPANIONS] !== undefined && effect[kind] === undefined) issue([field], `goes with ${kind} only`);
  }
  if ((effect.durationMs !== undefined || effect.chunks !== undefined) && effect.fault !== undefined && effect.fault !== 'slow-body') {
    issue([effect.durationMs === undefined ? 'chunks' : 'durationMs'], 'goes with the slow-body fault only');
  }
  if (effect.stream !== undefined && effect.afterMs !== undefined && effect.afterMessages !== undefined)
    issue(['afterMessages'], 'is a second trigger beside afterMs: give one');
}

/** Either an effect or a device fault, and the fields of each only with it. */
function checkRule(rule: z.infer<typeof FaultRuleSchema>, context: z.core.$RefinementCtx<z.infer<typeof FaultRuleSchema>>): void {
  if (typeof rule !== 'object' || rule === null) return;
  const issue = (path: string[], message: string) => context.addIssue({ code: 'custom', input: rule, path, message });
  if (rule.effect === undefined && rule.device === undefined) issue([], 'must hold an effect, or a device fault (device)');
  if (rule.effect !== undefined && rule.device !== undefined) issue(['device'], 'is a device fault beside an effect: a rule has one');
  for (const field of ['chute', 'network', 'radio', 'seconds'] as const) {
    if (rule[field] !== undefined && rule.device === undefined)
      issue([field], 'goes with a device fault only: match an HTTP rule with match.chute, match.network');
  }
  if (rule.match !== undefined && rule.effect === undefined) issue(['match'], 'goes with an effect only: a device fault holds for the whole device');
}
