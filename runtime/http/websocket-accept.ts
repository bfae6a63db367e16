import type { WebSocket } from 'ws';

/**
 * The key under which an upgrade request's `c.env` carries how a route takes the websocket
 * (runtime/http/websocket.ts). A registered symbol, so that the emulator's fault rules, bundled apart
 * from the websockets, find the same key and wrap what the route starts (emulator/faults/fetch.ts).
 */
export const ACCEPT_WEBSOCKET: unique symbol = Symbol.for('chutebox.acceptWebsocket');

/** Called by a route that takes the upgrade, with what to do with the websocket once it is open: `open(ws)` resolves once everything started for it has stopped, after it closed. */
export type AcceptWebsocket = (open: (ws: WebSocket) => Promise<void>) => void;
