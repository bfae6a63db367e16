import { describe, expect, it } from 'vitest';
import { asOfEvents } from './chute-states.ts';

describe("asOfEvents: the engine's list of chute containers as the events since say", () => {
  const listed = [
    { Id: 'c1', State: 'running', Status: 'Up 2 minutes', Labels: { 'io.chutebox.chute': 'app' } },
    { Id: 'c2', State: 'running', Status: 'Up 1 minute', Labels: { 'io.chutebox.chute': 'web' } },
    { Id: 'c3', State: 'exited', Status: 'Exited (0) 1 minute ago', Labels: { 'io.chutebox.chute': 'db' } },
  ];
  const event = (id: string, action: string, exitCode: number | null = null) => ({ chute: 'any', action, id, exitCode });

  it('shows a container that died as exited with its exit code, though the list still says running', () => {
    expect(asOfEvents(listed, [event('c1', 'die', 143)])).toEqual([{ ...listed[0], State: 'exited', Status: 'Exited (143)' }, listed[1], listed[2]]);
  });

  it('shows started and unpaused containers running, paused ones paused, and leaves destroyed ones out; a kill changes nothing', () => {
    expect(asOfEvents(listed, [event('c3', 'start'), event('c2', 'pause'), event('c1', 'destroy')])).toEqual([
      { ...listed[1], State: 'paused' },
      { ...listed[2], State: 'running' },
    ]);
    expect(asOfEvents(listed, [event('c1', 'kill'), event('c9', 'die', 1)])).toEqual(listed);
  });
});
