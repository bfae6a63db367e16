import { createReadStream } from 'node:fs';

/**
 * A file's text, or null when it is larger than `limit` bytes: read up to one byte past the limit
 * (a FIFO or a device file has no size to ask first).
 *
 * @throws Error for a file that cannot be read.
 */
export async function readAtMost(file: string, limit: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of createReadStream(file, { end: limit })) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return size > limit ? null : Buffer.concat(chunks).toString('utf8');
}
