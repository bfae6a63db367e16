/** The services of a chute (ParaDrop's multi-service chutes): what its record keeps of each, and which is the main one (functions/chutes/services.ts). */

/** ParaDrop's service types: built from its Dockerfile, built from a template per runtime, or an engine image. */
export type ServiceType = 'normal' | 'light' | 'image';

/** One service as a chute's record keeps it (`record.services.<service>`). */
export interface ChuteService {
  type: ServiceType;
  /** The image its container runs: an engine image (`image`), or the tag chutebox built; null until built. */
  image: string | null;
  /** The folder of the source it is built from, `''` for the root; absent for an `image` service. */
  source?: string;
  /** The runtime a light service is built for (`use`: node, python3, …). */
  use?: string;
  /** What its container runs instead of the image's command. */
  command?: string | string[];
  /** Its own variables, given after the chute's. */
  environment?: Record<string, string>;
}

/** A chute's services by name, in paradrop.yaml's order, and which one is the main service. */
export interface ChuteServices {
  main: string;
  services: Record<string, ChuteService>;
}
