import type { MemberIdentity } from './identity-values.ts';
import { filled, textTemplate, type IdentityTables, type Site, type TextTemplate } from './identity-texts.ts';

/**
 * Where a scenario's documents (device.yaml, the engine recordings, the chutes, the host configuration,
 * living.yaml) hold identity values, found once per scenario: a device of a fleet copies only the
 * objects on the way to them, and shares everything else with the scenario.
 */

/** The plan of a JSON value: a string's template, or the keys and members of an object or array that hold values. */
export type DocumentPlan = TextTemplate | Branch;

interface Branch {
  /** Keys that hold a value (engine stats by container id), by key. */
  keys: ReadonlyMap<string, TextTemplate>;
  /** Members that hold a value, by key (an array's by its index). */
  members: ReadonlyMap<string, DocumentPlan>;
}

/**
 * The plan of `value`, or null when it holds no identity value: `siteAt` says which strings are places
 * of their own (`documentSite`), by their path from the value.
 */
export function documentPlan(
  value: unknown,
  tables: IdentityTables,
  siteAt: (path: readonly string[]) => Site | undefined,
  path: readonly string[] = [],
): DocumentPlan | null {
  if (typeof value === 'string') return textTemplate(value, tables, siteAt(path));
  if (typeof value !== 'object' || value === null) return null;
  const keys = new Map<string, TextTemplate>();
  const members = new Map<string, DocumentPlan>();
  for (const [key, member] of Object.entries(value)) {
    const renamed = Array.isArray(value) ? null : textTemplate(key, tables);
    if (renamed !== null) keys.set(key, renamed);
    const plan = documentPlan(member, tables, siteAt, [...path, key]);
    if (plan !== null) members.set(key, plan);
  }
  return keys.size === 0 && members.size === 0 ? null : { keys, members };
}

/**
 * `value` as a device with `identity` reads it: the objects and arrays on the way to a value copied,
 * everything else shared with the scenario.
 *
 * @example
 * const engine = planned(documents.engine, plan, memberIdentity(member)); // its own ids, the recorded stats bodies shared but their `id`
 */
export function planned<T>(value: T, plan: DocumentPlan | null, identity: MemberIdentity): T {
  if (plan === null) return value;
  if ('literals' in plan) return filled(plan, identity) as T;
  if (Array.isArray(value)) return value.map((member, index) => planned(member, plan.members.get(String(index)) ?? null, identity)) as T;
  // fromEntries defines each key as its own, even `__proto__`.
  return Object.fromEntries(
    Object.entries(value as object).map(([key, member]) => {
      const renamed = plan.keys.get(key);
      return [renamed === undefined ? key : filled(renamed, identity), planned(member, plan.members.get(key) ?? null, identity)];
    }),
  ) as T;
}
