// The portal's script (GET /, docs/decisions/0063-the-portal.md): draws the device, its chutes and
// their networks' stations from the API, and follows the events stream and a log (the daemon's or a chute's). Every
// URL is relative to the page, so the page works wherever it is served, and asks only its own origin.
import { networkKind } from '../../../functions/chutes/network-kind.ts';
import { DEVICE_EVENT_KINDS } from '../../../functions/core/device/events.ts';

/** How many events and log lines the page keeps on screen: the oldest go first. */
const EVENTS_SHOWN = 50;
const LOG_LINES_SHOWN = 100;
/** The kinds of event after which the chutes and their networks are read again. */
const REDRAWN_ON = /^(station|lease|chute)\.|^change\.ended$|^events\.missed$/;
/** The lowest signal (dBm) for each bar lit, from one bar to four. */
const BAR_SIGNALS = [-85, -75, -67, -55];
const SVG = 'http://www.w3.org/2000/svg';

/** An element with its attributes and children. */
function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

/** The JSON answer of `GET api/v1/<path>`; throws with the problem's detail on any other status. */
async function api(path) {
  const answer = await fetch(`api/v1/${path}`, { headers: { accept: 'application/json' } });
  const body = await answer.json().catch(() => null);
  if (!answer.ok) throw new Error(`${path}: ${answer.status} ${body?.detail ?? answer.statusText}`);
  return body;
}

/** Shows what went wrong (null: nothing). */
function problem(error) {
  const shown = document.getElementById('problem');
  shown.hidden = error === null;
  shown.textContent = error === null ? '' : String(error.message ?? error);
}

/** Draws the device's hardware and software. */
async function drawDevice() {
  const [hardware, software] = await Promise.all([api('info/hardware'), api('info/software')]);
  const facts = [
    ['Board', [hardware.vendor, hardware.board].filter(Boolean).join(' ')],
    ['System', software.osVersion],
    ['Kernel', software.kernelVersion],
    ['chutebox', software.pdVersion],
    ['Memory', hardware.memory ? `${Math.round(hardware.memory / 2 ** 20)} MiB` : null],
    ['Up', software.uptime ? duration(software.uptime) : null],
  ];
  document
    .getElementById('device')
    .replaceChildren(...facts.filter(([, value]) => value).flatMap(([name, value]) => [el('dt', {}, name), el('dd', {}, value)]));
}

let drawing = 0;
/** Draws every chute with its state and networks; a later draw wins over one still reading. */
async function drawChutes() {
  const mine = ++drawing;
  const chutes = await api('chutes');
  const items = await Promise.all(chutes.map(chuteItem));
  if (mine !== drawing) return;
  document.getElementById('chutes').replaceChildren(...(items.length > 0 ? items : [el('li', { class: 'none' }, 'No chute installed')]));
  logChoices(chutes);
}

/** A chute's item: its name, version and state, then each of its networks. */
async function chuteItem(chute) {
  const name = encodeURIComponent(chute.name);
  const [networks, config] = await Promise.all([api(`chutes/${name}/networks`), api(`chutes/${name}/config`)]);
  const head = el('div', { class: 'chute-head' }, el('h3', {}, chute.name), el('span', { class: 'version' }, `v${chute.version}`));
  head.append(el('span', { class: `state ${chute.state}`, 'data-state': chute.state }, chute.state));
  const drawn = await Promise.all(networks.map((network) => networkItem(chute.name, network, config.net?.[network.name] ?? {})));
  return el('li', { class: 'chute', 'data-chute': chute.name }, head, ...drawn);
}

/** A network's item: an access point with its stations (signal as bars, host name from its leases), else its type and interface. */
async function networkItem(chute, network, configured) {
  const kind = networkKind(network.type, configured.mode ?? null);
  const label = {
    'access-point': `Wi-Fi ${configured.ssid ? `“${configured.ssid}” (${network.name})` : network.name}`,
    monitor: `Wi-Fi monitor ${network.name}`,
    vlan: `VLAN ${network.name}`,
  }[kind];
  const head = el('div', { class: 'network-head' }, `${label ?? `${network.type} ${network.name}`} · ${network.interface}`);
  const item = el('div', { class: 'network', 'data-network': network.name }, head);
  if (kind !== 'access-point') return item;
  const path = `chutes/${encodeURIComponent(chute)}/networks/${encodeURIComponent(network.name)}`;
  const [stations, leases] = await Promise.all([api(`${path}/stations`), api(`${path}/leases`)]);
  const names = new Map(leases.filter((lease) => lease.hostname && lease.hostname !== '*').map((lease) => [lease.mac_addr, lease.hostname]));
  const list = el('ul', {}, ...stations.map((station) => stationItem(station, names.get(station.mac_addr))));
  item.append(stations.length > 0 ? list : el('p', { class: 'none' }, 'No station'));
  return item;
}

/** A station: its signal as bars, its host name (when a lease names it) and MAC address. */
function stationItem(station, hostname) {
  const who = el('span', { class: 'who' }, ...(hostname ? [el('span', {}, hostname), ' '] : []), el('span', { class: 'mac' }, station.mac_addr));
  return el('li', { class: 'station', 'data-mac': station.mac_addr }, signalBars(Number.parseInt(station.signal, 10)), who);
}

/** Four bars, as many lit as the signal is strong; the label says it in words (no number on screen). */
function signalBars(dbm) {
  const lit = Number.isNaN(dbm) ? 0 : BAR_SIGNALS.filter((floor) => dbm >= floor).length;
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('class', 'bars');
  svg.setAttribute('viewBox', '0 0 22 16');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', `signal ${['none', 'weak', 'fair', 'good', 'excellent'][lit]} (${lit} of 4 bars)`);
  svg.dataset.bars = String(lit);
  for (let bar = 0; bar < 4; bar++) {
    const rect = document.createElementNS(SVG, 'rect');
    const height = 4 * (bar + 1);
    for (const [name, value] of Object.entries({ x: bar * 6, y: 16 - height, width: 4, height, rx: 1 })) rect.setAttribute(name, String(value));
    if (bar < lit) rect.setAttribute('class', 'lit');
    svg.append(rect);
  }
  return svg;
}

/** Seconds as days, hours and minutes: `3d 4h 12m`. */
function duration(seconds) {
  const parts = [
    [Math.floor(seconds / 86400), 'd'],
    [Math.floor((seconds % 86400) / 3600), 'h'],
    [Math.floor((seconds % 3600) / 60), 'm'],
  ];
  return (
    parts
      .filter(([n]) => n > 0)
      .map(([n, unit]) => `${n}${unit}`)
      .join(' ') || `${seconds}s`
  );
}

/** An ISO time as the clock on the wall shows it (the browser's time zone). */
function clockTime(iso) {
  const time = new Date(iso);
  return el('time', { datetime: iso }, Number.isNaN(time.getTime()) ? iso : time.toLocaleTimeString([], { hour12: false }));
}

/** What an event says, in a line. */
function eventText(event) {
  const where = event.network ? `${event.chute}/${event.network}` : (event.chute ?? 'device');
  switch (event.kind) {
    case 'station.connected':
    case 'station.disconnected':
      return `${where} ${event.mac}`;
    case 'station.roamed':
      return `${where} ${event.mac} from ${event.from.chute}/${event.from.network}`;
    case 'chute.state':
      return `${event.chute}: ${event.previous ?? 'new'} → ${event.state}`;
    case 'change.queued':
    case 'change.progressed':
    case 'change.ended':
      return `${where}: ${event.change.action} #${event.change.id} ${event.change.state}`;
    case 'hostconfig.applied':
      return event.success ? 'applied' : 'failed';
    case 'controller.delivery':
      return `${event.what} ${event.success ? 'delivered' : `failed: ${event.error}`}`;
    case 'events.missed':
      return 'older events are gone: the page is read again';
    default:
      return `${where} ${event.ip ?? ''} ${event.hostname ?? event.mac ?? ''}`.trim();
  }
}

/** Puts `item` first in the list `id`, keeping at most `kept`. */
function prepend(id, item, kept) {
  const list = document.getElementById(id);
  list.prepend(item);
  while (list.children.length > kept) list.lastElementChild.remove();
}

let redraw;
/** Reads the chutes again shortly: events come in bursts (a join, then its lease). */
function redrawSoon() {
  clearTimeout(redraw);
  redraw = setTimeout(() => drawChutes().then(() => problem(null), problem), 250);
}

/**
 * Follows `GET api/v1/events` from the first event the device keeps (a reconnect resumes after the
 * last one seen): each event listed, the chutes read again after those that change them.
 */
function followEvents() {
  const live = document.getElementById('live');
  const source = new EventSource('api/v1/events?lastEventId=0');
  source.onopen = () => {
    live.textContent = 'live';
    live.classList.add('on');
  };
  source.onerror = () => {
    live.textContent = 'reconnecting…';
    live.classList.remove('on');
  };
  for (const kind of [...DEVICE_EVENT_KINDS, 'events.missed']) {
    source.addEventListener(kind, (message) => {
      const event = { kind, ...JSON.parse(message.data) };
      const item = el('li', { 'data-kind': kind }, clockTime(event.time ?? new Date().toISOString()), el('span', { class: 'kind' }, kind), eventText(event));
      prepend('events', item, EVENTS_SHOWN);
      if (REDRAWN_ON.test(kind)) redrawSoon();
    });
  }
}

let following;
/** Shows the log of `chute` (a chute's name, or '' for the daemon's), ending the one followed before. */
function showLog(chute) {
  following?.abort();
  following = new AbortController();
  document.getElementById('log').replaceChildren();
  followLog(chute === '' ? 'logs' : `chutes/${encodeURIComponent(chute)}/logs`, following.signal);
}

/** Follows `GET api/v1/<path>` (NDJSON) from its last lines until `signal` aborts; after an end or an error, again 3 s later. */
async function followLog(path, signal) {
  while (!signal.aborted) {
    try {
      const answer = await fetch(`api/v1/${path}?follow=true&tail=20`, { headers: { accept: 'application/x-ndjson' }, signal });
      if (!answer.ok) throw new Error(`${path}: ${answer.status}`);
      document.getElementById('log').replaceChildren();
      // A reader, not `for await`: Safari cannot iterate a stream.
      const reader = answer.body.pipeThrough(new TextDecoderStream()).getReader();
      let rest = '';
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        const lines = (rest + read.value).split('\n');
        rest = lines.pop();
        for (const line of lines.filter(Boolean)) prepend('log', logItem(JSON.parse(line)), LOG_LINES_SHOWN);
      }
    } catch {
      // Aborted, or the server went away or refused: the next round goes on, or fails again.
    }
    await new Promise((resolve) => setTimeout(resolve, signal.aborted ? 0 : 3000));
  }
}

/** A line of a log: the daemon's as its time, level and message, then its other fields; a chute's as it printed it. */
function logItem(entry) {
  let line = null;
  try {
    line = JSON.parse(entry.message);
  } catch {
    // Not JSON: a line as a chute printed it.
  }
  if (line === null || typeof line !== 'object' || typeof line.msg !== 'string') {
    return el('li', { class: `stream-${entry.stream}` }, clockTime(entry.time), entry.message);
  }
  const { time, level = 'info', msg, ...fields } = line;
  const rest = Object.entries(fields).map(([name, value]) => ` ${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return el('li', { class: `level-${level}` }, clockTime(time ?? entry.time), `${level} ${msg}${rest.join('')}`);
}

/** The log chooser's options: the daemon's log, then each chute's; the chosen one kept while its chute is there. */
function logChoices(chutes) {
  const choice = document.getElementById('log-source');
  const chosen = choice.value;
  const names = ['', ...chutes.map((chute) => chute.name)];
  choice.replaceChildren(...names.map((name) => el('option', { value: name }, name === '' ? 'chutebox' : `chute ${name}`)));
  choice.value = names.includes(chosen) ? chosen : '';
  if (choice.value !== chosen) showLog(choice.value);
}

Promise.all([drawDevice(), drawChutes()]).then(() => problem(null), problem);
followEvents();
document.getElementById('log-source').addEventListener('change', (event) => showLog(event.target.value));
showLog('');
