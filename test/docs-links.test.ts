import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useTempDir } from './support/temp-dir.ts';

/** The README is where a reader starts; the reference lives in docs/. Do not loosen this here. */
const README_LIMIT = 12 * 1024;

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const NOT_DOCS = new Set(['.git', 'node_modules', 'dist']);

/** Every `*.md` file under `root`, outside `.git`, `node_modules` and `dist`, as absolute paths. */
function markdownFiles(root: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const full = path.join(root, entry.name);
    if (entry.isDirectory() && !NOT_DOCS.has(entry.name)) found.push(...markdownFiles(full));
    else if (entry.isFile() && entry.name.toLowerCase().endsWith('.md')) found.push(full);
  }
  return found.sort();
}

/** The lines of a Markdown text with the lines of fenced code blocks blanked (line numbers kept). */
function linesOutsideFences(text: string): string[] {
  let fence: string | undefined;
  return text.split('\n').map((line) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined) {
      if (marker === undefined) return line;
      fence = marker;
      return '';
    }
    if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) {
      fence = undefined;
    }
    return '';
  });
}

/**
 * The anchor GitHub gives a heading: its text as rendered (code, links and emphasis reduced to their
 * text), lower-cased, punctuation and symbols dropped, each space a `-`.
 *
 * @example slug('The hostapd control websocket (`hostapd-control`)') === 'the-hostapd-control-websocket-hostapd-control'
 */
function slug(heading: string): string {
  const text = heading
    .split(/(`+[^`]*`+)/)
    .map((part, i) =>
      i % 2 === 1
        ? part.replace(/^`+|`+$/g, '')
        : part
            .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
            .replace(/<[^>]*>/g, '')
            .replace(/\*+|~~/g, '')
            .replace(/(^|[^\p{L}\p{N}])_+|_+(?=[^\p{L}\p{N}]|$)/gu, '$1'),
    )
    .join('');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown text: one per heading, a repeated one numbered `-1`, `-2`, …, as GitHub does. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const line of linesOutsideFences(text)) {
    const heading = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (heading === null) {
      for (const html of line.matchAll(/<a\s[^>]*\b(?:name|id)="([^"]+)"/g)) found.add(html[1] ?? '');
      continue;
    }
    const base = slug(heading[1] ?? '');
    let anchor = base;
    while (found.has(anchor)) {
      const n = (seen.get(base) ?? 0) + 1;
      seen.set(base, n);
      anchor = `${base}-${n}`;
    }
    found.add(anchor);
  }
  return found;
}

/** The link targets of one line outside code: inline links and images, reference definitions, href/src. */
function linkTargets(line: string): string[] {
  const prose = line.replace(/(`+)[^`]*?\1/g, '');
  const targets: string[] = [];
  const inline = /\]\(\s*(<[^>]*>|[^()\s]+(?:\([^()\s]*\)[^()\s]*)*)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g;
  for (const match of prose.matchAll(inline)) targets.push((match[1] ?? '').replace(/^<|>$/g, ''));
  const definition = /^ {0,3}\[[^\]]+\]:\s*(\S+)/.exec(prose);
  if (definition?.[1] !== undefined) targets.push(definition[1].replace(/^<|>$/g, ''));
  for (const match of prose.matchAll(/\b(?:href|src)="([^"]+)"/g)) targets.push(match[1] ?? '');
  return targets;
}

/**
 * Each relative link of the Markdown file `file` (inside `root`) that leads nowhere, as
 * `<file>:<line>: <target>: <why>`. Links with a scheme (`https:`, `mailto:`) are not followed.
 */
function brokenLinks(root: string, file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const name = path.relative(root, file);
  const broken: string[] = [];
  linesOutsideFences(text).forEach((line, index) => {
    for (const target of linkTargets(line)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue;
      const hash = target.indexOf('#');
      const filePart = decodeURIComponent((hash < 0 ? target : target.slice(0, hash)).replace(/\?.*$/, ''));
      const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
      const where = `${name}:${index + 1}: ${target}`;
      let linked = file;
      if (filePart !== '') {
        linked = filePart.startsWith('/') ? path.join(root, filePart) : path.resolve(path.dirname(file), filePart);
        if (path.relative(root, linked).startsWith('..')) {
          broken.push(`${where}: leads outside the repository`);
          continue;
        }
        if (!existsSync(linked)) {
          broken.push(`${where}: no such file`);
          continue;
        }
      }
      if (anchor === undefined) continue;
      if (statSync(linked).isDirectory()) linked = path.join(linked, 'README.md');
      if (!linked.toLowerCase().endsWith('.md') || !existsSync(linked)) continue;
      if (!anchors(readFileSync(linked, 'utf8')).has(anchor)) {
        broken.push(`${where}: ${path.relative(root, linked)} has no heading with the anchor #${anchor}`);
      }
    }
  });
  return broken;
}

describe('the Markdown documentation', () => {
  it('links only to files that exist, and to #anchors that are headings of them', () => {
    const files = markdownFiles(ROOT);
    expect(files.map((file) => path.relative(ROOT, file))).toContain(path.join('docs', 'README.md'));
    expect(files.flatMap((file) => brokenLinks(ROOT, file))).toEqual([]);
  });

  it('keeps README.md within 12 KB', () => {
    expect(statSync(path.join(ROOT, 'README.md')).size).toBeLessThanOrEqual(README_LIMIT);
  });

  it('lists every decision record in docs/decisions/README.md', () => {
    const decisions = path.join(ROOT, 'docs', 'decisions');
    const index = readFileSync(path.join(decisions, 'README.md'), 'utf8');
    const records = readdirSync(decisions).filter((name) => /^\d{4}-.*\.md$/.test(name));
    expect(records.filter((name) => !index.includes(`](${name})`))).toEqual([]);
  });
});

describe('the link check', () => {
  const temp = useTempDir('chutebox-docs-links-');

  it('reports a missing file, a missing heading and a link out of the repository, and nothing else', async () => {
    const root = await temp.folder('repo');
    await writeFile(path.join(temp.path(), 'outside.md'), '# Outside\n');
    await mkdir(path.join(root, 'docs', 'api'), { recursive: true });
    await writeFile(
      path.join(root, 'docs', 'api', 'info.md'),
      [
        '# Device information',
        '## The hostapd control websocket (`hostapd-control`)',
        "### The emulator's clock",
        '## Notes',
        '## Notes',
        '```sh',
        '# not a heading',
        '[not a link](nowhere.md)',
        '```',
      ].join('\n'),
    );
    await writeFile(
      path.join(root, 'README.md'),
      [
        'Good: [info](docs/api/info.md), [ws](docs/api/info.md#the-hostapd-control-websocket-hostapd-control),',
        '[clock](docs/api/info.md#the-emulators-clock), [again](docs/api/info.md#notes-1), [docs](docs/api/),',
        '[here](#top-of-readme), [web](https://example.org/x.md), `[code](gone.md)`.',
        '# Top of README',
        'Bad: [gone](docs/gone.md), [anchor](docs/api/info.md#not-a-heading), [out](../outside.md).',
      ].join('\n'),
    );

    expect(brokenLinks(root, path.join(root, 'docs', 'api', 'info.md'))).toEqual([]);
    expect(brokenLinks(root, path.join(root, 'README.md'))).toEqual([
      'README.md:5: docs/gone.md: no such file',
      'README.md:5: docs/api/info.md#not-a-heading: docs/api/info.md has no heading with the anchor #not-a-heading',
      'README.md:5: ../outside.md: leads outside the repository',
    ]);
  });
});
