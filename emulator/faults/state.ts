import * as z from 'zod/mini';
import { atMost, STATE_LIMITS } from '../state-limits.ts';
import { FaultRuleSchema } from './rule.ts';

/** What a rule has counted: its hits, its requests by method and path (the `n` of its draws), and when it was added. */
export const FaultCountersSchema = z.strictObject({
  hits: z.int().check(z.minimum(0)),
  /** Emulated time since the start when the rule was added, in ms: a device fault holds from then on. */
  addedMs: z.int().check(z.minimum(0)),
  /** By `"<method> <path>"`: how many requests of it the rule has seen. */
  sequences: z
    .record(z.string(), z.int().check(z.minimum(0)))
    .check(z.refine((sequences) => Object.keys(sequences).length <= STATE_LIMITS.faultSequences, `must hold at most ${STATE_LIMITS.faultSequences} sequences`)),
});
export type FaultCounters = z.infer<typeof FaultCountersSchema>;

/**
 * The fault rules' part of an emulator state (emulator/emulator-state.ts): the rules as
 * `GET /_chutebox/faults` answers them, the number of the next rule made without an id, and what each
 * rule counted, by its id.
 */
export const FaultsStateSchema = z.strictObject({
  rules: z.array(FaultRuleSchema).check(atMost(STATE_LIMITS.faultRules, 'rules')),
  nextId: z.int().check(z.minimum(1), z.maximum(Number.MAX_SAFE_INTEGER)),
  counters: z.record(z.string(), FaultCountersSchema),
});
export type FaultsState = z.infer<typeof FaultsStateSchema>;
