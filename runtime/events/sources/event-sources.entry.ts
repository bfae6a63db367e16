/**
 * The entry of the event sources bundle, `dist/event-sources.mjs`: the host's sources of device
 * events (hostapd, dnsmasq's lease files, the engine's event stream), which the host Device loads
 * when it starts them, so that the runtime bundle stays small. It only re-exports.
 */
export { startHostEventSources, type EventSource, type HostEventSourceOptions, type Publish } from './index.ts';
