import { describe, expect, it } from 'vitest';
import { CHUTE_LABEL } from '../core/device/index.ts';
import { chuteState, isChuteState } from './state.ts';

/** An entry of `GET /containers/json?all=1` for chute `hello`, as Docker lists it. */
function container(State: string, Status: string, more: Record<string, unknown> = {}): Record<string, unknown> {
  return { Id: `${State}0123`, Names: ['/hello'], Labels: { [CHUTE_LABEL]: 'hello' }, State, Status, Created: 1763536210, ...more };
}

describe('chuteState: the chute state for each engine state', () => {
  it('running → running', () => {
    expect(chuteState([container('running', 'Up 2 days')], 'hello', 'stopped')).toBe('running');
  });

  it('restarting → restarting', () => {
    expect(chuteState([container('restarting', 'Restarting (1) 3 seconds ago')], 'hello', 'running')).toBe('restarting');
  });

  it('removing → stopping', () => {
    expect(chuteState([container('removing', 'Removal In Progress')], 'hello', 'running')).toBe('stopping');
  });

  it('created → stopped', () => {
    expect(chuteState([container('created', 'Created')], 'hello', 'running')).toBe('stopped');
  });

  it('paused → stopped', () => {
    expect(chuteState([container('paused', 'Up 2 hours (Paused)')], 'hello', 'running')).toBe('stopped');
  });

  it('exited with exit code 0 → stopped', () => {
    expect(chuteState([container('exited', 'Exited (0) 5 minutes ago')], 'hello', 'running')).toBe('stopped');
  });

  it('exited with a non-zero exit code → failed', () => {
    expect(chuteState([container('exited', 'Exited (137) 5 minutes ago')], 'hello', 'running')).toBe('failed');
    expect(chuteState([container('exited', 'Exited (1) About an hour ago')], 'hello', 'running')).toBe('failed');
  });

  it('exited without an exit code in its status → stopped', () => {
    expect(chuteState([container('exited', '')], 'hello', 'running')).toBe('stopped');
  });

  it('exited with any code after a stop was asked (stored state stopped) → stopped: SIGTERM gives 143, SIGKILL 137', () => {
    expect(chuteState([container('exited', 'Exited (137) 5 minutes ago')], 'hello', 'stopped')).toBe('stopped');
    expect(chuteState([container('exited', 'Exited (143) 1 second ago')], 'hello', 'stopped')).toBe('stopped');
  });

  it('dead → failed', () => {
    expect(chuteState([container('dead', 'Dead')], 'hello', 'running')).toBe('failed');
  });

  it('a state chutebox does not know → stopped', () => {
    expect(chuteState([container('hibernating', 'Zzz')], 'hello', 'running')).toBe('stopped');
  });

  it('no container labelled with the chute name → missing', () => {
    expect(chuteState([], 'hello', 'running')).toBe('missing');
    const other = container('running', 'Up 2 days', { Labels: { [CHUTE_LABEL]: 'hotspot' } });
    const unlabelled = container('running', 'Up 2 days', { Labels: {}, Names: ['/hello'] });
    expect(chuteState([other, unlabelled], 'hello', 'running')).toBe('missing');
  });

  it('no container while an install runs (the stored state is installing) → installing', () => {
    expect(chuteState([], 'hello', 'installing')).toBe('installing');
    expect(chuteState([container('running', 'Up 1 second')], 'hello', 'installing')).toBe('running');
  });

  it('no reachable engine → the stored state, the last one known', () => {
    expect(chuteState(null, 'hello', 'running')).toBe('running');
    expect(chuteState(null, 'hello', 'failed')).toBe('failed');
    expect(chuteState(null, 'hello', 'installing')).toBe('installing');
  });

  it('no reachable engine and no stored state, or one that is not a chute state → missing', () => {
    expect(chuteState(null, 'hello', undefined)).toBe('missing');
    expect(chuteState(null, 'hello', 'exited')).toBe('missing');
    expect(chuteState(null, 'hello', 42)).toBe('missing');
  });

  it('takes the most recently created container when several carry the chute name', () => {
    const old = container('exited', 'Exited (1) 2 days ago', { Created: 1763500000 });
    const recreated = container('running', 'Up 1 minute', { Created: 1763536210 });
    expect(chuteState([recreated, old], 'hello', 'stopped')).toBe('running');
    expect(chuteState([old, recreated], 'hello', 'stopped')).toBe('running');
  });
});

describe('isChuteState', () => {
  it('accepts exactly the seven chute states', () => {
    for (const state of ['installing', 'running', 'stopping', 'stopped', 'restarting', 'failed', 'missing']) expect(isChuteState(state)).toBe(true);
    for (const state of ['exited', 'Running', '', null]) expect(isChuteState(state)).toBe(false);
  });
});
