import { describe, expect, it } from 'vitest';
import { ROAM_WINDOW_MS, roamTracker } from './roaming.ts';

const MAC = '02:00:00:00:00:01';
const lab = { chute: 'lab', network: 'wifi' };
const cafe = { chute: 'cafe', network: 'guest' };

/** A tracker on a clock the test moves. */
function tracker() {
  let time = 1_000_000;
  const roams = roamTracker(ROAM_WINDOW_MS, () => time);
  return { roams, pass: (ms: number) => (time += ms) };
}

describe('roamTracker: a station that leaves one network for another within the roam window', () => {
  it('roamed when it left one network and joined another within the window', () => {
    const { roams, pass } = tracker();
    expect(roams.left(MAC, lab)).toBeNull();
    pass(ROAM_WINDOW_MS);
    expect(roams.joined(MAC, cafe)).toEqual(lab);
  });

  it('roamed when it joined another network first and then left the first within the window', () => {
    const { roams, pass } = tracker();
    expect(roams.joined(MAC, lab)).toBeNull();
    pass(60_000);
    expect(roams.joined(MAC, cafe)).toBeNull();
    pass(1000);
    expect(roams.left(MAC, lab)).toEqual(cafe);
  });

  it('did not roam when the window passed, when it came back to the same network, or when it left the network it had just joined', () => {
    const { roams, pass } = tracker();
    roams.left(MAC, lab);
    pass(ROAM_WINDOW_MS + 1);
    expect(roams.joined(MAC, cafe)).toBeNull();
    roams.left(MAC, cafe);
    expect(roams.joined(MAC, cafe)).toBeNull();
    roams.joined(MAC, lab);
    expect(roams.left(MAC, lab)).toBeNull();
    expect(roams.left(MAC, cafe)).toBeNull();
  });

  it('tells one roam once, and keeps stations apart', () => {
    const { roams } = tracker();
    roams.left(MAC, lab);
    roams.left('02:00:00:00:00:02', cafe);
    expect(roams.joined(MAC, cafe)).toEqual(lab);
    expect(roams.left(MAC, lab)).toBeNull();
    expect(roams.joined('02:00:00:00:00:02', lab)).toEqual(cafe);
  });
});
