/** Provisioning with the cloud controller, and the telemetry sent to it: a service of the device (`DeviceServices.provisioning`). */

/** What `POST /api/v1/config/provision` takes: what ParaDrop clients send. */
export interface ProvisionCredentials {
  /** The device's id at the controller; becomes the pdid. */
  routerId: string;
  /** The device's API token at the controller: a secret, never answered by a GET. */
  apitoken: string;
  /** The controller's base URL, `http(s)://…`. */
  pdserver: string;
  /** The controller's WAMP router URL, `ws(s)://…` (stored; chutebox reports over HTTP). */
  wampRouter: string;
}

/** The provisioning state, without the token. */
export interface ProvisionStatus {
  provisioned: boolean;
  routerId: string | null;
  pdserver: string | null;
  wampRouter: string | null;
  /** True when the last exchange with the controller over HTTP succeeded. */
  httpConnected: boolean;
  /** Always false: chutebox does not connect to the WAMP router. */
  wampConnected: boolean;
  /** When the credentials were stored (ISO 8601); null when not provisioned. */
  provisionedAt: string | null;
  telemetry: TelemetryStatus;
}

/** How sending telemetry reports to the controller goes. */
export interface TelemetryStatus {
  /** True when provisioned and the host configuration's `telemetry.enabled` is true. */
  enabled: boolean;
  /** Seconds between reports. */
  interval: number;
  /** When a report was last delivered (ISO 8601), or null. */
  lastSuccess: string | null;
  /** The last failure, or null once a report was delivered after it. */
  lastError: { time: string; message: string } | null;
  /** Reports waiting to be delivered. */
  queued: number;
  /** Reports dropped, oldest first, because the queue was full. */
  dropped: number;
  /** Reports delivered to the controller since the device started (or was reset). */
  delivered: number;
  /** Deliveries that failed since the device started (or was reset): each attempt, retries included. */
  failed: number;
}

/** Provisioning with the cloud controller. */
export interface Provisioning {
  status(): Promise<ProvisionStatus>;
  /**
   * Checks the credentials with the controller at `pdserver`, then stores them privately; the pdid
   * becomes `routerId`. Throws an `HttpProblem` and stores nothing when the controller refuses them
   * (422 naming the field), cannot be reached or answers nonsense (502), or does not answer in time (504),
   * and 409 during a factory reset.
   */
  provision(credentials: ProvisionCredentials): Promise<ProvisionStatus>;
  /**
   * Who a token the controller issued to a user is (`POST /api/v1/auth/cloud`), as the controller the
   * device is provisioned with says: `GET <pdserver>/api/users/me` and `GET <pdserver>/api/routers/<routerId>`,
   * both with that token. Throws an `HttpProblem`: 409 when the device is not provisioned, 401 when the
   * controller refuses the token, 403 when it gives the user no rights on this router, 502 or 504 as
   * provisioning does.
   */
  verifyCloudUser(token: string): Promise<CloudUser>;
}

/** A user of the controller, as it vouches for them: their email, and their role on this router (`owner`, `admin`, `user`, …). */
export interface CloudUser {
  email: string;
  role: string;
}
