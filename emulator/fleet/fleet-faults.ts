import type { Hono } from 'hono';
import * as z from 'zod/mini';
import { decodeBody } from '../../functions/core/body/decode.ts';
import { inputPath } from '../../functions/core/problem.ts';
import { validate } from '../../functions/core/validate.ts';
import type { AuthPolicy } from '../../runtime/auth/policy.ts';
import { authorizer } from '../../runtime/http/auth.ts';
import { corsPolicy } from '../../runtime/http/cors.ts';
import { limitedBody } from '../../runtime/http/request-body.ts';
import { FAULTS_BODY_BYTES, FAULTS_PATH } from '../faults/api.ts';
import { faultEngine, type PreparedFaults } from '../faults/engine.ts';
import type { Operations } from '../faults/match.ts';
import type { FaultRule, FaultRuleInput } from '../faults/rule.ts';
import { FaultsStateSchema } from '../faults/state.ts';
import { atMost, STATE_LIMITS } from '../state-limits.ts';
import { draw } from '../seeded.ts';
import type { FleetMember, FleetSpec } from './members.ts';

/** Which devices a fleet rule holds on: those named, and a share of the fleet drawn from its seed; every device when neither is given. */
export const FleetTargetSchema = z.strictObject({
  ids: z.optional(z.array(z.string().check(z.regex(/^router-(0|[1-9][0-9]{0,8})$/, { error: 'must be a device id such as router-42' })))),
  share: z.optional(z.number().check(z.minimum(0, { error: 'must be from 0 to 1' }), z.maximum(1, { error: 'must be from 0 to 1' }))),
});
export type FleetTarget = z.infer<typeof FleetTargetSchema>;

/** A rule of the fleet: a device's rule, and the devices it holds on. */
export type FleetRule = FaultRule & { devices?: FleetTarget };

/** The fleet's rules in a fleet's state (`GET /_chutebox/state` of a fleet): each with the devices it holds on, and the number of the next rule made without an id. */
export const FleetFaultsStateSchema = z.strictObject({
  rules: z.array(z.unknown()).check(atMost(STATE_LIMITS.faultRules, 'rules')),
  nextId: FaultsStateSchema.shape.nextId,
});
export interface FleetFaultsState {
  rules: FleetRule[];
  nextId: number;
}

/** The fleet's rules of a state, checked: what `restore` puts in place. */
export interface PreparedFleetFaults {
  prepared: PreparedFaults;
  targets: Map<string, FleetTarget>;
}

/** What the fleet's rules do to its devices: give a device the rules that target it, as it is built and when they change. */
export interface FleetFaultsOptions {
  spec: FleetSpec;
  /** The API's operations, for rules that match an operationId. */
  operations: () => Promise<Operations>;
  /** A rule added: put it on the devices built so far that it targets. */
  added(rule: FaultRuleInput, targets: (member: FleetMember) => boolean): Promise<void>;
  /** A rule removed: take it off every device built so far. */
  removed(id: string): Promise<void>;
}

/**
 * The fleet's fault rules (`/_chutebox/faults` of a fleet): each a rule as one device takes it, with
 * `devices: {ids, share}` saying which devices it holds on (`{"share": 0.01}`: one device in a hundred,
 * drawn from the fleet's seed and the rule's id, the same ones at every start). A rule lives in the
 * engines of the devices it targets: those built when it is added get it then, the others when built.
 *
 * @example
 * const rules = fleetFaults({ spec, operations, added, removed });
 * await rules.add({ effect: { fault: 'connection-reset' }, devices: { share: 0.01 } }); // 1% of the fleet offline
 */
export function fleetFaults(options: FleetFaultsOptions) {
  // Checks each rule as a device would and gives it its id; the fleet's own elapsed time is not read.
  const engine = faultEngine({ elapsedMs: () => 0, seed: () => options.spec.seed, operations: options.operations });
  const targets = new Map<string, FleetTarget>();

  /** Whether the rule `id` with `target` holds on `member`. */
  const holds = (id: string, target: FleetTarget | undefined) => (member: FleetMember) =>
    target === undefined ||
    (target.ids === undefined && target.share === undefined) ||
    (target.ids?.includes(member.id) ?? false) ||
    (target.share !== undefined && draw(options.spec.seed, 'fault-share', id, member.index) < target.share);

  const withTarget = (rule: FaultRule): FleetRule => (targets.has(rule.id) ? { ...rule, devices: targets.get(rule.id)! } : rule);

  return {
    /** The rules that hold on `member`, as its engine takes them: what a device is built with. */
    async rulesFor(member: FleetMember): Promise<FaultRuleInput[]> {
      return (await engine.list()).filter((rule) => holds(rule.id, targets.get(rule.id))(member));
    },
    async add(value: unknown, at = 'body'): Promise<FleetRule> {
      const { devices, ...rule } = (value ?? {}) as { devices?: unknown };
      const target = devices === undefined ? undefined : validate(FleetTargetSchema, devices, `${at}.devices`, 'the rule');
      const held = await engine.add(rule, at);
      if (target !== undefined) targets.set(held.id, target);
      await options.added(held, holds(held.id, target));
      return withTarget(held);
    },
    async list(): Promise<FleetRule[]> {
      return (await engine.list()).map(withTarget);
    },
    async remove(id: string): Promise<void> {
      await engine.remove(id);
      targets.delete(id);
      await options.removed(id);
    },
    async clear(): Promise<void> {
      for (const rule of await engine.list()) await this.remove(rule.id);
    },
    /** The rules as a fleet's state holds them. */
    async snapshot(): Promise<FleetFaultsState> {
      return { rules: (await engine.list()).map(withTarget), nextId: engine.snapshot().nextId };
    },
    /** The rules of a fleet's state checked, each as `add` checks it; nothing changes. @throws HttpProblem 422 naming each field from `at`. */
    async prepare(state: z.output<typeof FleetFaultsStateSchema>, at: string): Promise<PreparedFleetFaults> {
      const given = new Map<number, FleetTarget>();
      const rules = state.rules.map((value, i) => {
        const { devices, ...rule } = (value ?? {}) as { devices?: unknown };
        if (devices !== undefined) given.set(i, validate(FleetTargetSchema, devices, inputPath(at, ['rules', i, 'devices']), 'the state'));
        return rule;
      });
      const prepared = await engine.prepare({ rules: rules as FaultRule[], nextId: state.nextId, counters: {} }, at);
      const targets = new Map([...given].map(([i, target]) => [prepared.rules[i]!.ready.rule.id, target]));
      return { prepared, targets };
    },
    /** The rules of a state put in place of the fleet's, without reaching a device: a fleet's restore puts its devices' own. */
    restore({ prepared, targets: given }: PreparedFleetFaults): void {
      engine.restore(prepared);
      targets.clear();
      for (const [id, target] of given) targets.set(id, target);
    },
  };
}

export type FleetFaults = ReturnType<typeof fleetFaults>;

/**
 * Mounts the fleet's rules on the fleet's app: `GET /_chutebox/faults` lists them, `POST` adds one
 * (201), `DELETE` removes all (204), `DELETE /_chutebox/faults/<id>` one (404 for an unknown id). A
 * rule that does not check is a 422 naming each field, and changes nothing.
 */
export function mountFleetFaults(app: Hono, rules: FleetFaults, options: { auth: AuthPolicy | null; corsOrigin?: string | undefined }): void {
  const cors = corsPolicy(options.corsOrigin);
  const authorize = authorizer(options.auth, cors.listed);
  const readText = limitedBody(FAULTS_BODY_BYTES, (c) => c.req.text());
  const answer = (origin: string | undefined, status: number, body?: unknown) =>
    new Response(body === undefined ? null : JSON.stringify(body), {
      status,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json', 'cache-control': 'no-store' }), ...cors.headers(origin) },
    });
  app.get(FAULTS_PATH, async (c) => (await authorize(c), answer(c.req.header('origin'), 200, { rules: await rules.list() })));
  app.post(FAULTS_PATH, async (c) => {
    await authorize(c);
    const rule = await rules.add(decodeBody(c.req.header('content-type'), await readText(c), FAULTS_BODY_BYTES));
    return answer(c.req.header('origin'), 201, rule);
  });
  app.delete(FAULTS_PATH, async (c) => (await authorize(c), await rules.clear(), answer(c.req.header('origin'), 204)));
  app.delete(`${FAULTS_PATH}/:id`, async (c) => (await authorize(c), await rules.remove(c.req.param('id')), answer(c.req.header('origin'), 204)));
}
