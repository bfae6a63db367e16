import { unpackTar, type TarHeader } from 'modern-tar';
import { HttpProblem } from '../core/problem.ts';
/*
 * An image archive as `docker save` writes it: a tar (ustar) whose `manifest.json` lists the images,
 * `[{ Config, RepoTags: ['busybox:latest'], Layers }]`. Tars are read by modern-tar in its strict mode
 * (docs/decisions/0019-uploaded-tars-read-by-modern-tar.md).
 */

/** A tar header's size: an archive shorter than this is no tar. */
const BLOCK = 512;

/**
 * The repo tags of an image archive, in the order its `manifest.json` lists them (every image's).
 *
 * @throws Error saying why when `archive` is not a tar, is damaged, has no `manifest.json` or that is
 *   not a docker-save manifest.
 * @example
 * await imageArchiveTags(await readFile('busybox.tar')) // ['busybox:latest']
 */
export async function imageArchiveTags(archive: Uint8Array): Promise<string[]> {
  const manifest = (await tarFiles(archive, ['manifest.json'])).get('manifest.json');
  if (manifest === undefined) throw new Error('the archive has no manifest.json: it is not a docker save archive');
  return manifestTags(manifest);
}

/**
 * The repo tags a docker-save `manifest.json` lists, every image's in order.
 *
 * @throws Error saying why when it is not JSON or not a list of images.
 * @example
 * manifestTags(new TextEncoder().encode('[{"RepoTags":["busybox:latest"]}]')) // ['busybox:latest']
 */
export function manifestTags(manifest: Uint8Array): string[] {
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
export async function uploadedImageTags(archive: Uint8Array): Promise<string[]> {
  try {
    return await imageArchiveTags(archive);
  } catch (error) {
    throw new HttpProblem(422, 'the image archive cannot be loaded', { errors: [{ path: 'body', message: (error as Error).message }] });
  }
}

/**
 * The regular files among `names` at the root of a tar archive (`./name` counts too; of two by one
 * name, the later, as unpacking leaves it), by name. The archive is read to its end blocks as a tool
 * that unpacks it would, every header's checksum checked: ustar, GNU long names and PAX records. A
 * link, a folder, `../name` or `/name` is never taken for `name`. `paths`, when given, gets the path of
 * every regular file of the archive (`./` left out).
 *
 * @throws Error saying what is wrong when `archive` is not a tar, a header is damaged anywhere, or it
 *   is cut short (inside an entry, or before its two end blocks), or bytes other than zeros follow them.
 * @example
 * await tarFiles(tarArchive({ 'paradrop.yaml': 'name: hello\n', 'app.sh': 'echo hi\n' }), ['paradrop.yaml', 'Dockerfile'])
 * // Map { 'paradrop.yaml' => Uint8Array(12) }
 */
export async function tarFiles(archive: Uint8Array, names: readonly string[], paths?: Set<string>): Promise<Map<string, Uint8Array>> {
  if (archive.length < BLOCK) throw new Error('the archive is not a tar: it is shorter than one tar header');
  const wanted = (header: TarHeader) => {
    if (header.type === 'file') paths?.add(rootName(header.name));
    return header.type === 'file' && names.includes(rootName(header.name));
  };
  let entries: Awaited<ReturnType<typeof unpackTar>>;
  try {
    entries = await unpackTar(archive, { strict: true, filter: wanted });
  } catch (error) {
    throw unreadable(error);
  }
  return new Map(entries.map(({ header, data }) => [rootName(header.name), data ?? new Uint8Array(0)]));
}

/** `./name` as `name`. */
function rootName(name: string): string {
  return name.startsWith('./') ? name.slice(2) : name;
}

/** What the reader threw, said for the client who sent the archive. */
function unreadable(error: unknown): Error {
  const message = (error instanceof Error ? error.message : String(error)).replace(/\.$/, '');
  if (/truncated/i.test(message)) return new Error('the archive is cut short: it stops inside an entry or before its end blocks');
  if (/\bEOF\b/.test(message)) return new Error('the archive is damaged: bytes other than zeros follow its end blocks');
  const said = /^[A-Z][a-z]/.test(message) ? `${message.charAt(0).toLowerCase()}${message.slice(1)}` : message;
  return new Error(`the archive is not a tar, or it is damaged: ${said}`);
}
