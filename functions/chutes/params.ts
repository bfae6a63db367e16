import { CHUTE_NAME } from '../core/device/index.ts';
import type { FunctionInput } from '../core/handler.ts';
import { HttpProblem, type InputError } from '../core/problem.ts';

/** A network name (a key of the chute configuration's `net`): the same rule as a chute name. */
export const NETWORK_NAME = CHUTE_NAME;

/** What a chute name (`CHUTE_NAME`) must be, as an input error's message. */
export const CHUTE_NAME_MESSAGE = 'must be a chute name: a letter or digit, then letters, digits, _ . or -, 64 characters at most';

/** What a network name (`NETWORK_NAME`) must be, as an input error's message. */
export const NETWORK_NAME_MESSAGE = 'must be a network name: a letter or digit, then letters, digits, _ . or -, 64 characters at most';

/** A station MAC address: six colon-separated pairs of hex digits, any case. */
export const MAC_ADDRESS = /^[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}){5}$/;

/** A change id: a whole number, at most 15 digits (a safe integer). */
export const CHANGE_ID = /^[0-9]{1,15}$/;

/** The path parameters of the chute and change endpoints and what each must be. */
const RULES = {
  chute: { pattern: CHUTE_NAME, message: CHUTE_NAME_MESSAGE },
  network: { pattern: NETWORK_NAME, message: NETWORK_NAME_MESSAGE },
  mac: { pattern: MAC_ADDRESS, message: 'must be a MAC address such as 02:00:00:aa:bb:cc' },
  id: { pattern: CHANGE_ID, message: 'must be a change id: a whole number such as 12' },
} as const;

export type ParamName = keyof typeof RULES;

/**
 * The named path parameters, checked before any use; a MAC address comes back in lower case.
 *
 * @throws HttpProblem 400 naming every bad parameter (`params.mac`).
 * @example
 * pathParams(input, ['chute', 'network', 'mac']) // { chute: 'hello', network: 'wlan', mac: '02:00:00:aa:bb:cc' }
 */
export function pathParams<K extends ParamName>(input: FunctionInput, names: readonly K[]): Record<K, string> {
  const values = {} as Record<K, string>;
  const errors: InputError[] = [];
  for (const name of names) {
    const value = input.params[name] ?? '';
    if (RULES[name].pattern.test(value)) values[name] = name === 'mac' ? value.toLowerCase() : value;
    else errors.push({ path: `params.${name}`, message: RULES[name].message });
  }
  if (errors.length > 0) {
    throw new HttpProblem(400, `bad path parameter: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, { errors });
  }
  return values;
}
