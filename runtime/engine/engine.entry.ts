/**
 * The entry of the engine bundle, `dist/engine.mjs` (docs/decisions/0005-engine-client-is-its-own-bundle.md):
 * the Docker client and the chute work that needs it, which `runtime/host-device.ts` loads on first
 * use. It only re-exports, and only a dynamic import names it: the modules it gathers import one
 * another downward, never back through it (docs/decisions/0021-layers-point-down.md).
 */
export * from './docker.ts';
// The lifecycle is engine work and needs the configuration code (zod): it lives in this bundle too,
// with the writer of the chutes it changes and the repair of changes a crash cut short.
export { chuteEffects } from '../chutes/lifecycle.ts';
export { runningPid } from '../chutes/container-steps.ts';
export { chuteWriter } from '../chutes/store.ts';
export { recoverChutes } from '../chutes/recover.ts';
// What a chute's networks hold on the host, which installs and updates reserve.
export { networkLedger } from '../../functions/chutes/network-reservations.ts';
// The host side of chute networks: their interfaces and supervised daemons.
export { chuteNetworks, deviceRadios } from '../network/chute-networks.ts';
// The programs those need, which GET /api/v1/info/features looks for once it found an engine.
export { programsOnPath } from '../tools/programs.ts';
