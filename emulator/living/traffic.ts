import type { Rates } from './spec.ts';
import { grown, type StationRates } from './station.ts';
import type { Session } from './sessions.ts';

/*
 * The traffic through an access point since the start, for the counters of its interface, the
 * uplink and its chute's container: the exact bytes of the stations of the recording and the
 * timeline (a bounded list), plus what the drawn stations move in expectation, a closed form of the
 * time. Summing every drawn stay since the start would cost a read more the longer the emulator ran.
 */

/** Bytes and packets moved, each direction: `up` from the stations, `down` to them. */
export interface Traffic {
  upBytes: number;
  upPackets: number;
  downBytes: number;
  downPackets: number;
}

export const NO_TRAFFIC: Readonly<Traffic> = Object.freeze({ upBytes: 0, upPackets: 0, downBytes: 0, downPackets: 0 });

/** The mean packet sizes of drawn stations (station.ts draws them from 200–600 and 900–1400 bytes). */
const UP_PACKET = 400;
const DOWN_PACKET = 1150;

/**
 * What went through access point `ap` from 0 to `t` (ms): the stays of `listed` (recorded and
 * timeline stations, whose own rates `ratesOf` gives) on it, byte for byte, and the drawn stations'
 * mean: `joinsPerHour` arriving, each staying an exponential time of mean m at the mean rate r moves
 * λ·r·(m·t − m²·(1 − e^(−t/m))) by t.
 */
export function trafficThrough(seed: number, rates: Rates, listed: readonly Session[], ap: string, ratesOf: (id: string) => StationRates, t: number): Traffic {
  const total = { upBytes: 0, upPackets: 0, downBytes: 0, downPackets: 0 };
  for (const session of listed) {
    for (const segment of session) {
      const began = Math.max(segment.start, 0);
      if (segment.ap !== ap || t <= began) continue;
      const own = ratesOf(segment.id);
      const ms = Math.min(t, segment.end) - began;
      const up = grown(seed, [segment.id, segment.index, 'rx'], own.up, ms);
      const down = grown(seed, [segment.id, segment.index, 'tx'], own.down, ms);
      total.upBytes += up;
      total.upPackets += Math.floor(up / own.upPacket);
      total.downBytes += down;
      total.downPackets += Math.floor(down / own.downPacket);
    }
  }
  const perMs = rates.joinsPerHour / 3_600_000;
  const m = rates.meanSessionMinutes * 60_000;
  const stationMs = perMs * (m * t - m * m * (1 - Math.exp(-t / m)));
  const up = Math.floor((stationMs * rates.upKbps) / 8);
  const down = Math.floor((stationMs * rates.downKbps) / 8);
  return {
    upBytes: total.upBytes + up,
    upPackets: total.upPackets + Math.floor(up / UP_PACKET),
    downBytes: total.downBytes + down,
    downPackets: total.downPackets + Math.floor(down / DOWN_PACKET),
  };
}

/** Traffic added up. */
export function sumTraffic(traffics: readonly Traffic[]): Traffic {
  return traffics.reduce(
    (sum, one) => ({
      upBytes: sum.upBytes + one.upBytes,
      upPackets: sum.upPackets + one.upPackets,
      downBytes: sum.downBytes + one.downBytes,
      downPackets: sum.downPackets + one.downPackets,
    }),
    NO_TRAFFIC,
  );
}

/**
 * /proc/net/dev with the receive and transmit bytes and packets of some interfaces moved on
 * (`added`: by interface, what it received and sent more). Each number keeps its column: it ends
 * where the recorded one ended, taking blanks before it when it is wider, one blank left at least.
 */
export function movedNetDev(text: string, added: ReadonlyMap<string, { receive: [number, number]; transmit: [number, number] }>): string {
  return text
    .split('\n')
    .map((line) => {
      const colon = line.indexOf(':');
      const more = colon < 0 || line.includes('|') ? undefined : added.get(line.slice(0, colon).trim());
      if (more === undefined) return line;
      // Receive bytes and packets are the 1st and 2nd numbers, transmit the 9th and 10th.
      const plus = [more.receive[0], more.receive[1], 0, 0, 0, 0, 0, 0, more.transmit[0], more.transmit[1]];
      let index = 0;
      const numbers = line.slice(colon + 1).replace(/(\s*)(\d+)/g, (match, blanks: string, digits: string) => {
        const by = plus[index++] ?? 0;
        if (by === 0) return match;
        const value = String(BigInt(digits) + BigInt(by));
        const width = blanks.length + digits.length;
        return value.padStart(Math.max(width, value.length + (blanks.length > 0 ? 1 : 0)));
      });
      return `${line.slice(0, colon + 1)}${numbers}`;
    })
    .join('\n');
}
