import * as z from 'zod/mini';
import { MAC_ADDRESS } from '../../functions/chutes/params.ts';
import { CHUTE_NAME } from '../../functions/core/device/index.ts';
import { check, parseScenarioYaml } from '../../runtime/scenario/format.ts';

/** The file of a scenario that makes its network live: rates of generated activity and a timeline (docs/emulator.md#a-living-network). */
export const LIVING_FILE = 'living.yaml';

/** The most entries a timeline may hold. */
const MAX_TIMELINE = 1000;

/** The rates of generated activity, each with its default (`DEFAULT_RATES`). */
export interface Rates {
  /** New stations per hour on each access point. */
  joinsPerHour: number;
  /** How long a station stays, on average (exponentially distributed), in minutes. */
  meanSessionMinutes: number;
  /** No station stays longer, in minutes (the bound that keeps every read's work bounded); default 4 × the mean, a day at most. */
  maxSessionMinutes: number;
  /** The mean traffic to each station (what the access point sends it), in kbit/s. */
  downKbps: number;
  /** The mean traffic from each station, in kbit/s. */
  upKbps: number;
  /** The chance that a station moves to another access point of the device once during its stay. */
  roamProbability: number;
}

/** The rates of a scenario whose `living.yaml` gives none, or leaves some out. */
export const DEFAULT_RATES: Readonly<Rates> = Object.freeze({
  joinsPerHour: 2,
  meanSessionMinutes: 30,
  maxSessionMinutes: 120,
  downKbps: 400,
  upKbps: 80,
  roamProbability: 0.1,
});

/** One step of the timeline: at `at` seconds of emulated time, `station` joins, roams to, or leaves. */
export interface TimelineStep {
  at: number;
  /** The station's MAC address, lower case. */
  station: string;
  /** The access point it joins, `<chute>/<network>`. */
  join?: string | undefined;
  /** The access point it moves to, `<chute>/<network>`. */
  roam?: string | undefined;
  leave?: true | undefined;
  /** The host name its DHCP request sends (a join); none by default. */
  hostname?: string | undefined;
  /** Its signal in dBm (a join); drawn from the seed by default. */
  signal?: number | undefined;
}

/** A scenario's living network: `living.yaml`, checked, its rates complete and its timeline in time order. */
export interface Living {
  rates: Rates;
  timeline: TimelineStep[];
}

const minutes = z.number().check(z.positive(), z.maximum(1440, { error: 'must be at most 1440 (a day)' }));
const kbps = z.number().check(z.nonnegative(), z.maximum(1_000_000));

const RatesSchema = z.strictObject({
  joinsPerHour: z.optional(z.number().check(z.nonnegative(), z.maximum(600))),
  meanSessionMinutes: z.optional(minutes),
  maxSessionMinutes: z.optional(minutes),
  downKbps: z.optional(kbps),
  upKbps: z.optional(kbps),
  roamProbability: z.optional(z.number().check(z.gte(0), z.lte(1))),
});

const accessPoint = z.string().check(
  z.refine((text) => {
    const [chute = '', network = '', ...rest] = text.split('/');
    return rest.length === 0 && CHUTE_NAME.test(chute) && CHUTE_NAME.test(network);
  }, 'must name an access point as <chute>/<network>, e.g. hello-world/wifi'),
);

const StepSchema = z
  .strictObject({
    at: z.number().check(z.nonnegative(), z.maximum(31_536_000, { error: 'must be at most 31536000 seconds (a year)' })),
    station: z.string().check(z.regex(MAC_ADDRESS, { error: 'must be a MAC address such as 02:00:00:aa:bb:cc' })),
    join: z.optional(accessPoint),
    roam: z.optional(accessPoint),
    leave: z.optional(z.literal(true)),
    hostname: z.optional(z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,62}$/, { error: 'must be a host name: letters, digits and -, 63 at most' }))),
    signal: z.optional(z.int().check(z.gte(-100), z.lte(-10))),
  })
  .check(
    z.refine((step) => [step.join, step.roam, step.leave].filter((what) => what !== undefined).length === 1, {
      error: 'must say one of join, roam or leave',
    }),
  );

const LivingSchema = z
  .strictObject({
    rates: z.optional(RatesSchema),
    timeline: z.optional(z.array(StepSchema).check(z.maxLength(MAX_TIMELINE, { error: `must hold at most ${MAX_TIMELINE} steps` }))),
  })
  .check(z.superRefine(consistent, { when: () => true }));

/**
 * The rates fit together, and each station's steps make sense in time order: a station joins before
 * it roams or leaves, roams to another access point than its own, and does one thing at a time.
 */
function consistent(living: z.infer<typeof LivingSchema>, context: z.core.$RefinementCtx<unknown>): void {
  const rates = completeRates(living.rates);
  if (rates.maxSessionMinutes < rates.meanSessionMinutes) {
    const message = `must not be below meanSessionMinutes (${rates.meanSessionMinutes})`;
    context.addIssue({ code: 'custom', path: ['rates', 'maxSessionMinutes'], input: rates.maxSessionMinutes, message });
  }
  const steps = (living.timeline ?? []).map((step, index) => ({ step, index })).sort((a, b) => a.step.at - b.step.at);
  const stations = new Map<string, { at: string | null; time: number; index: number }>();
  for (const { step, index } of steps) {
    const mac = step.station.toLowerCase();
    const last = stations.get(mac) ?? { at: null, time: -1, index: -1 };
    const what = step.join !== undefined ? 'join' : step.roam !== undefined ? 'roam' : 'leave';
    const problem =
      last.time === step.at
        ? `comes at the same time as timeline[${last.index}] for station ${mac}: one step a station at a time`
        : what === 'join' && last.at !== null
          ? `station ${mac} is on ${last.at} since timeline[${last.index}]: it must leave before it joins again`
          : what !== 'join' && last.at === null
            ? `station ${mac} has not joined by ${step.at} s: it must join first`
            : what === 'roam' && last.at === step.roam
              ? `station ${mac} is on ${step.roam} already: a roam goes to another access point`
              : null;
    if (problem !== null) context.addIssue({ code: 'custom', path: ['timeline', index, what], input: step, message: problem });
    stations.set(mac, { at: step.join ?? step.roam ?? null, time: step.at, index });
  }
}

/**
 * Parses and checks a scenario's `living.yaml`: its rates (those left out take `DEFAULT_RATES`) and
 * its timeline, put in time order (steps of the same time in the file's order), MACs in lower case.
 *
 * @throws ScenarioError naming the file and every bad field, e.g.
 *   `…/living.yaml is not a valid living network:\n✖ station 02:… has not joined by 90 s: it must join first\n  → at timeline[1].roam`
 * @example
 * parseLivingYaml('rates: {joinsPerHour: 4}\ntimeline:\n  - {at: 30, station: 02:00:00:00:00:01, join: hello-world/wifi}\n', 'living.yaml')
 */
export function parseLivingYaml(text: string, file: string): Living {
  const living = check(LivingSchema, parseScenarioYaml(text, file), `${file} is not a valid living network`);
  const timeline = (living.timeline ?? []).map((step) => ({ ...step, station: step.station.toLowerCase() })).sort((a, b) => a.at - b.at);
  return { rates: completeRates(living.rates), timeline };
}

/** The rates given, those left out taken from `DEFAULT_RATES` (the longest stay from the mean given). */
function completeRates(given: Partial<Rates> | undefined): Rates {
  const meanSessionMinutes = given?.meanSessionMinutes ?? DEFAULT_RATES.meanSessionMinutes;
  return { ...DEFAULT_RATES, maxSessionMinutes: Math.min(1440, 4 * meanSessionMinutes), ...given };
}
