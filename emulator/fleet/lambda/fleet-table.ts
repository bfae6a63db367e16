/**
 * The names a fleet on Lambda shares between its CDK stack (emulator/fleet/aws/fleet-stack.ts) and
 * its functions: the table's key. Nothing here loads the AWS SDK or the CDK.
 */

/** The table's partition key: a device's id (`router-<index>`), a string. */
export const TABLE_KEY = 'device';
