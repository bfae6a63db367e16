/** A Docker tag: a letter, digit or `_` first, then those, `.` and `-`, 128 characters at most. */
const DOCKER_TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

/** A chute name that is a Docker repository name component as it is: lower-case letters and digits, single `-` between them. */
const REPOSITORY_SAFE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * The repository of the images built for a chute, one per chute name: `chute-<name>` when the name
 * is one Docker takes as it is; otherwise a readable form (lower case, every run of other characters
 * one `-`) then `_` and the name's UTF-8 bytes in hex, so that names Docker would fold together
 * (`Hello` and `hello`, `hello_world` and `hello-world`) never share images. `_` never appears in the
 * first form, so the two forms never meet either.
 *
 * @example
 * chuteImageRepository('hello-world') // 'chute-hello-world'
 * chuteImageRepository('Hello_World') // 'chute-hello-world_48656c6c6f5f576f726c64'
 */
export function chuteImageRepository(chute: string): string {
  if (REPOSITORY_SAFE.test(chute)) return `chute-${chute}`;
  const readable =
    chute
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'chute';
  const hex = Array.from(new TextEncoder().encode(chute), (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `chute-${readable}_${hex}`;
}

/**
 * The tag of the image a change builds from a chute's source: `<repository>:<version>`, or
 * `<repository>:<change id>` when the version is not a Docker tag (or there is none) or when it is
 * `avoid`, the image the chute runs now (an update that keeps the version must not retag the image
 * its previous container and rollback rely on). The repository is `chuteImageRepository`'s.
 *
 * @example
 * chuteImageTag('hello', '1.2', 7)                       // 'chute-hello:1.2'
 * chuteImageTag('Hello_World', null, 7)                  // 'chute-hello-world_48656c6c6f5f576f726c64:7'
 * chuteImageTag('hello', '1.2', 8, 'chute-hello:1.2')    // 'chute-hello:8'
 */
export function chuteImageTag(chute: string, version: string | null, change: number, avoid?: string): string {
  const repository = chuteImageRepository(chute);
  const byVersion = version !== null && DOCKER_TAG.test(version) ? `${repository}:${version}` : null;
  return byVersion !== null && byVersion !== avoid ? byVersion : `${repository}:${change}`;
}

/**
 * Whether an image is one that a change built for the chute (`chuteImageTag`): chutebox may remove it
 * when the chute no longer needs it; images the chute was installed from by name are never removed.
 *
 * @example
 * isBuiltImage('hello', 'chute-hello:3') // true
 * isBuiltImage('hello', 'busybox:1.36')  // false
 */
export function isBuiltImage(chute: string, image: string): boolean {
  return image.startsWith(`${chuteImageRepository(chute)}:`);
}
