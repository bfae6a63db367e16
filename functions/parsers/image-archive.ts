import { HttpProblem } from '../core/problem.ts';
/*
 * An image archive as `docker save` writes it: a tar (ustar) whose `manifest.json` lists the images,
 * `[{ Config, RepoTags: ['busybox:latest'], Layers }]`.
 */

const BLOCK = 512;

/**
 * The repo tags of an image archive, in the order its `manifest.json` lists them (every image's).
 *
 * @throws Error saying why when `archive` is not a tar, has no `manifest.json` or that is not a
 *   docker-save manifest.
 * @example
 * imageArchiveTags(await readFile('busybox.tar')) // ['busybox:latest']
 */
export function imageArchiveTags(archive: Uint8Array): string[] {
  const manifest = tarEntry(archive, 'manifest.json');
  if (manifest === null) throw new Error('the archive has no manifest.json: it is not a docker save archive');
  let images: unknown;
  try {
    images = JSON.parse(new TextDecoder().decode(manifest));
  } catch {
    throw new Error('the manifest.json of the archive is not JSON');
  }
  if (!Array.isArray(images)) throw new Error('the manifest.json of the archive is not a list of images');
  return images.flatMap((image: { RepoTags?: unknown }) =>
    Array.isArray(image?.RepoTags) ? image.RepoTags.filter((tag): tag is string => typeof tag === 'string') : [],
  );
}

/**
 * `imageArchiveTags` for a request body: an archive it cannot read is the client's mistake, a 422
 * naming `body`.
 *
 * @throws HttpProblem 422.
 */
export function uploadedImageTags(archive: Uint8Array): string[] {
  try {
    return imageArchiveTags(archive);
  } catch (error) {
    throw new HttpProblem(422, 'the image archive cannot be loaded', { errors: [{ path: 'body', message: (error as Error).message }] });
  }
}

/**
 * The contents of the regular file `name` (`./name` counts too) at any depth of a tar archive, or
 * null when the archive has none. Reads ustar and GNU headers (long names, PAX records are skipped).
 *
 * @throws Error when `archive` is not a tar: empty, cut short, or a header whose checksum is wrong
 *   before the file.
 */
export function tarEntry(archive: Uint8Array, name: string): Uint8Array | null {
  for (const entry of tarEntries(archive)) {
    if (entry.regular && (entry.path === name || entry.path === `./${name}`)) return entry.data;
  }
  return null;
}

/**
 * Reads a tar archive to its end, as a tool that unpacks it would.
 *
 * @throws Error saying where when any header is damaged or the archive is cut short.
 */
export function checkTar(archive: Uint8Array): void {
  for (const _ of tarEntries(archive));
}

/** The entries of a tar archive in order, up to its end blocks. */
function* tarEntries(archive: Uint8Array): Generator<{ path: string; regular: boolean; data: Uint8Array }> {
  if (archive.length < BLOCK) throw new Error('the archive is not a tar: it is shorter than one tar header');
  let longName: string | null = null;
  for (let at = 0; ; ) {
    // A tar ends with zero blocks: one that stops before them was cut short.
    if (at + BLOCK > archive.length) throw new Error('the archive is cut short: it stops before its end blocks');
    const header = archive.subarray(at, at + BLOCK);
    if (header.every((byte) => byte === 0)) return;
    if (!checksumMatches(header)) throw new Error(`the archive is not a tar: the header at byte ${at} is not a tar header`);
    const size = octal(header, 124, 12);
    const type = String.fromCharCode(header[156]!);
    const data = at + BLOCK;
    if (data + size > archive.length) throw new Error('the archive is cut short');
    const prefix = field(header, 345, 155);
    const path = longName ?? (prefix === '' ? field(header, 0, 100) : `${prefix}/${field(header, 0, 100)}`);
    longName = type === 'L' ? field(archive.subarray(data, data + size), 0, size) : null;
    yield { path, regular: type === '0' || type === '\0', data: archive.subarray(data, data + size) };
    at = data + Math.ceil(size / BLOCK) * BLOCK;
  }
}

/** A NUL-terminated text field. */
function field(block: Uint8Array, offset: number, length: number): string {
  const bytes = block.subarray(offset, offset + length);
  const end = bytes.indexOf(0);
  return new TextDecoder().decode(end === -1 ? bytes : bytes.subarray(0, end));
}

function octal(block: Uint8Array, offset: number, length: number): number {
  const text = field(block, offset, length).trim();
  if (!/^[0-7]+$/.test(text)) throw new Error('the archive is not a tar: a header has no size');
  return parseInt(text, 8);
}

/** The header's checksum field equals the sum of its bytes, the field itself counted as spaces. */
function checksumMatches(header: Uint8Array): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i]!;
  const stored = field(header, 148, 8).trim();
  return /^[0-7]+$/.test(stored) && parseInt(stored, 8) === sum;
}
