/** Authentication of the HTTP API: a policy, and the two ways to make one. */
export type { AuthPolicy } from './policy.ts';
export { localAuth, setPassword } from './local.ts';
export { fixedAccount, fixedAuth, fixedPolicy } from './fixed.ts';
