import { describe, expect, it } from 'vitest';
import { chuteImageRepository, chuteImageTag, isBuiltImage } from './image-tag.ts';

/** A Docker repository path component: lower-case letters and digits, separated by `.`, `_`, `__` or dashes. */
const DOCKER_REPOSITORY = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;

describe('the image a change builds for a chute', () => {
  it('is chute-<name>:<version> for a name Docker takes as it is', () => {
    expect(chuteImageTag('hello-world', '1.2', 7)).toBe('chute-hello-world:1.2');
  });

  it('is tagged with the change id without a usable version, or when the version is the image the chute runs now', () => {
    expect(chuteImageTag('hello', null, 7)).toBe('chute-hello:7');
    expect(chuteImageTag('hello', 'not a tag', 7)).toBe('chute-hello:7');
    expect(chuteImageTag('hello', '1.2', 8, 'chute-hello:1.2')).toBe('chute-hello:8');
  });

  it('never shares a repository between two chute names, even names Docker would fold together', () => {
    const names = ['hello', 'Hello', 'HELLO', 'hello-world', 'hello_world', 'hello.world', 'Hello_World', 'hello--world', 'hello-world-48656c6c6f', '9', 'a_'];
    const repositories = names.map(chuteImageRepository);
    expect(new Set(repositories).size).toBe(names.length);
    for (const repository of repositories) expect(repository).toMatch(DOCKER_REPOSITORY);
  });

  it('is a valid repository for the longest chute name of awkward characters', () => {
    const repository = chuteImageRepository(`A${'._-'.repeat(21)}`);
    expect(repository).toMatch(DOCKER_REPOSITORY);
    expect(repository.length).toBeLessThanOrEqual(255);
  });

  it("is known as built for its chute only: another chute's image, or an image installed by name, is not", () => {
    expect(isBuiltImage('hello', chuteImageTag('hello', '1', 1))).toBe(true);
    expect(isBuiltImage('hello', chuteImageTag('hello-world', '1', 1))).toBe(false);
    expect(isBuiltImage('hello_world', chuteImageTag('hello-world', '1', 1))).toBe(false);
    expect(isBuiltImage('hello', 'busybox:1.36')).toBe(false);
  });
});
