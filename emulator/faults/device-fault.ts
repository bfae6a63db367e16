import * as z from 'zod/mini';
import { CHUTE_NAME } from '../../functions/core/device/index.ts';

/**
 * The device faults: what a fault rule changes in the emulated device rather than in one HTTP
 * answer, so that every endpoint answers as serve does in the same real situation.
 * - `hostapd-down`: hostapd has exited (every network's, or the one of `chute` and `network`);
 * - `radio-gone`: the Wi-Fi radio has disappeared (`radio`, a phy name such as `phy0`, or every radio);
 * - `iw-hang`, `hostapd-cli-hang`: the tool does not answer before the runtime's timeout;
 * - `engine-unreachable`: the container engine's socket does not answer;
 * - `controller-unreachable`: the controller cannot be reached (provisioning and telemetry fail and retry);
 * - `disk-full`: writes to the device's storage fail with ENOSPC;
 * - `reboot`: the device answers nothing for `seconds` from `at`, then comes back with its uptime reset.
 * What each does to every endpoint is in docs/decisions/0052-device-faults-as-serve-answers-them.md.
 */
export const DEVICE_FAULTS = [
  'hostapd-down',
  'radio-gone',
  'iw-hang',
  'hostapd-cli-hang',
  'engine-unreachable',
  'controller-unreachable',
  'disk-full',
  'reboot',
] as const;
export type DeviceFaultKind = (typeof DEVICE_FAULTS)[number];

const name = z.string().check(z.regex(CHUTE_NAME, { error: 'must be a chute or network name' }));

/** One device fault as a rule gives it: `{"device": "hostapd-down", "chute": "hello-world", "network": "wifi"}`. */
export const DeviceFaultSchema = z.strictObject({
  device: z.enum(DEVICE_FAULTS),
  /** The chute whose networks it hits (`hostapd-down`); absent: every chute. */
  chute: z.optional(name),
  /** The network of `chute` it hits (`hostapd-down`); absent: every network of the chute. */
  network: z.optional(name),
  /** The radio it hits (`radio-gone`), a phy name; absent: every radio. */
  radio: z.optional(z.string().check(z.regex(/^phy\d{1,3}$/, { error: 'must be a phy name such as phy0' }))),
  /** How long a `reboot` keeps the device silent, in seconds (default 30). */
  seconds: z.optional(z.number().check(z.positive(), z.maximum(3600))),
  /**
   * When a `reboot` began, in milliseconds since the epoch on the device's clock (the emulated time);
   * absent: when the device first met it. A rule fills it in when its window opens.
   */
  at: z.optional(z.number().check(z.nonnegative(), z.maximum(Number.MAX_SAFE_INTEGER))),
});
export type DeviceFault = z.infer<typeof DeviceFaultSchema>;
