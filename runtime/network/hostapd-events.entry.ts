/**
 * The entry of the hostapd events bundle, `dist/hostapd-events.mjs` (docs/decisions/0013-hostapd-control-websocket.md),
 * which `hostNetwork` (host.ts) loads on the first ATTACH. It only re-exports, and only a dynamic
 * import names it (docs/decisions/0021-layers-point-down.md).
 */
export { attachHostapdEvents } from './hostapd-events.ts';
