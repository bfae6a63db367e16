/**
 * The entry of the chute-lifecycle bundle, `dist/chute-lifecycle.mjs`
 * (docs/decisions/0005-engine-client-is-its-own-bundle.md): the Docker client and the chute work that
 * needs it, which the host Device (`runtime/device/host-parts.ts`) loads on first use. It only
 * re-exports, and only a dynamic import names it: the modules it gathers import one another downward,
 * never back through it (docs/decisions/0021-layers-point-down.md).
 */
export * from '../engine/docker.ts';
// The engine's event stream of the chute containers, for serve's chute state events (runtime/events/sources/).
export * from '../engine/events.ts';
// The host's work on its chutes needs the configuration code (zod): the lifecycle and its writer, the
// reservations and the host side of the chutes' networks, the repair at start of what a crash cut short.
export { hostChutes } from './host-chutes.ts';
// The programs the chute networks need, which GET /api/v1/info/features looks for once it found an engine.
export { programsOnPath } from '../tools/programs.ts';
// What the chutes print (GET /api/v1/chutes/<chute>/logs, ParaDrop's log websockets).
export { chuteLogs } from '../engine/logs.ts';
