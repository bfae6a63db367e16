/** The host side of the chutes' networks: raw tool output (iw, hostapd) and files (dnsmasq leases). */
export interface DeviceNetworks {
  /**
   * The host side of one chute network: raw tool output and files. Each call may throw an
   * `HttpProblem` 503 (a tool or socket is missing) or 504 (it did not answer in time), naming which.
   */
  network(target: NetworkTarget): NetworkHost;
}

/** One chute network and the host resources behind it, as the chute cache records them. */
export interface NetworkTarget {
  chute: string;
  network: string;
  /** Host-side interface, e.g. `vwlan3f2a`: what `iw dev <if> …` is run on. */
  hostInterface: string | null;
  /** Path of hostapd's control socket for that interface, e.g. `/var/run/hostapd/vwlan3f2a`. */
  hostapdControl: string | null;
  /** Path of the dnsmasq lease file of the network. */
  leaseFile: string | null;
}

/** Raw access to the host resources behind one chute network. */
export interface NetworkHost {
  /** Output of `iw dev <hostInterface> station dump`, verbatim ('' when no station is connected). */
  stationDump(): Promise<string>;
  /** Output of `iw dev <hostInterface> station get <mac>`, verbatim; null when iw knows no such station. */
  stationGet(mac: string): Promise<string | null>;
  /** `iw dev <hostInterface> station del <mac>`: disconnects a station; false when there was none. */
  stationDel(mac: string): Promise<boolean>;
  /**
   * Output of `hostapd_cli -p <dir> -i <name> all_sta` on the network's control socket, verbatim:
   * hostapd's `STA` reply for each station it knows, one after the other ('' when it knows none).
   * What the stations are read from where iw cannot answer (a wired lab link, no nl80211). Throws
   * as `hostapd` does.
   */
  hostapdStations(): Promise<string>;
  /** The dnsmasq lease file, verbatim; null when it does not exist (yet). */
  leases(): Promise<string | null>;
  /**
   * One command to hostapd's control interface, and its reply verbatim: `['STATUS']`,
   * `['GET_CONFIG']`, `['SET', 'ssid', 'lab']` (reply `OK` or `FAIL`), `['RELOAD']`.
   */
  hostapd(command: string[]): Promise<string>;
  /**
   * Subscribes to hostapd's events, as `ATTACH` on its control socket does, and answers once
   * subscribed. `onEvent` gets each event's text without hostapd's `<level>` prefix (which the device
   * may not know), e.g. `AP-STA-DISCONNECTED 02:00:00:00:00:01`; `onEnd` gets why the events
   * stopped when they stop by themselves (hostapd went away), never after `stop()`. Throws as
   * `hostapd` does (503 when the control socket is missing or does not answer, 504).
   *
   * @example
   * const events = await host.hostapdEvents((text) => console.log(text), (reason) => console.error(reason));
   * await events.stop();
   */
  hostapdEvents(onEvent: (text: string) => void, onEnd: (reason: string) => void): Promise<HostapdEvents>;
}

/** A subscription to hostapd's events (`NetworkHost.hostapdEvents`). */
export interface HostapdEvents {
  /**
   * Ends the subscription: no event or end comes after it. Resolves once whatever ran for it has
   * stopped (the runtime's hostapd_cli process has exited).
   */
  stop(): Promise<void>;
}
