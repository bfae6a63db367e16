/** dynalite (npm), a DynamoDB API on LevelDB, in memory unless given a `path`: an HTTP server to listen with. */
declare module 'dynalite' {
  import type { Server } from 'node:http';
  interface DynaliteOptions {
    /** Milliseconds a new table stays CREATING (default 500). */
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    /** The LevelDB folder; in memory without one. */
    path?: string;
  }
  export default function dynalite(options?: DynaliteOptions): Server;
}
