import type { ChangeAction } from '../../functions/core/device/index.ts';
import type { ChangeEffect, ChangeEffects } from '../../runtime/changes/runner.ts';
import { CHANGE_ACTIONS } from '../../functions/changes/schemas.ts';

/**
 * A table of change effects with the same effect for every action: for tests of the pipeline itself,
 * where what an action does is beside the point.
 *
 * @example
 * changeRunner({ openLog: async () => memoryChangeLog(), effects: everyAction(async (_request, note) => note('done')) });
 */
export function everyAction(effect: ChangeEffect): ChangeEffects {
  return Object.fromEntries(CHANGE_ACTIONS.map((action: ChangeAction) => [action, effect])) as ChangeEffects;
}
