/**
 * YAML documents, read (`parseYaml`) and written (`YAML_WRITE`).
 *
 * YAML is read as YAML 1.1, the version PyYAML (and so ParaDrop) reads a chute developer's
 * service.yaml with: `yes`/`no`/`on`/`off` are booleans, `0755` is octal, `~` is null, and `<<`
 * merge keys work. Tags whose values JSON cannot hold, or that would rewrite what the client wrote,
 * are left out: timestamps (`2015-07-30` stays a string), sexagesimal numbers (`12:30` stays a
 * string), `!!binary`, `!!set`, `!!omap` and `!!pairs`. A `%YAML 1.2` directive in the document
 * switches to YAML 1.2. Numbers are numbers: `2.0` reads as 2.
 */
import { Composer, LineCounter, Parser, type CST, type DocumentOptions, type ParseOptions, type SchemaOptions, type ToJSOptions } from 'yaml';
import { MAX_DEPTH, tooDeepProblem } from './depth.ts';
import { malformed, unreadableBody } from './malformed.ts';

/** At most this many alias expansions in a YAML document: a guard against "billion laughs" bombs. */
export const MAX_ALIAS_COUNT = 100;

const YAML_1_1_DROPPED = new Set(['binary', 'omap', 'pairs', 'set', 'timestamp'].map((name) => `tag:yaml.org,2002:${name}`));

const YAML_READ: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.1',
  customTags: (tags) => tags.filter((tag) => typeof tag === 'string' || (!YAML_1_1_DROPPED.has(tag.tag) && tag.format !== 'TIME')),
  prettyErrors: false,
  uniqueKeys: true,
};

/**
 * Written as YAML 1.1 with every 1.1 tag known, so a string that any 1.1 reader would take for
 * something else (`"yes"`, `"0755"`, `"12:30"`, `"2015-07-30"`) is quoted; lines are never folded.
 */
export const YAML_WRITE = { version: '1.1', lineWidth: 0 } as const;

/**
 * One YAML document (YAML 1.1, see above) as a plain value. The nesting is measured on yaml's
 * syntax tree, which is built without recursion, before the document is composed (which recurses):
 * a deeply nested body must not reach the end of the stack, where V8 can fail fatally.
 *
 * @throws HttpProblem 400 naming the line and column of the first error, or for a document nested
 *   deeper than MAX_DEPTH, several documents, an alias without its anchor or too many aliases.
 */
export function parseYaml(text: string): unknown {
  const lineCounter = new LineCounter();
  const tokens = Array.from(new Parser(lineCounter.addNewLine).parse(text));
  if (tokens.some(nestsTooDeep)) throw tooDeepProblem();
  const documents = Array.from(new Composer(YAML_READ).compose(tokens, true, text.length));
  const document = documents[0]!;
  if (documents.length > 1) {
    throw malformed('YAML', 'it holds more than one document', lineCounter.linePos(documents[1]!.range[0]));
  }
  const [first] = document.errors;
  if (first !== undefined) {
    const more = document.errors.length > 1 ? ` (and ${document.errors.length - 1} more)` : '';
    throw malformed('YAML', first.message + more, lineCounter.linePos(first.pos[0]));
  }
  try {
    return document.toJS({ maxAliasCount: MAX_ALIAS_COUNT } satisfies ToJSOptions);
  } catch (error) {
    // An alias to a missing anchor, or more alias expansions than MAX_ALIAS_COUNT.
    if (error instanceof ReferenceError) throw unreadableBody(`is not valid YAML: ${error.message}`);
    throw error;
  }
}

/** Whether a YAML syntax tree nests collections more than MAX_DEPTH deep, checked without recursion. */
function nestsTooDeep(root: CST.Token): boolean {
  const stack: { token: CST.Token; depth: number }[] = [{ token: root, depth: 0 }];
  while (stack.length > 0) {
    const { token, depth } = stack.pop()!;
    if (token.type === 'document' && token.value) stack.push({ token: token.value, depth });
    if (token.type !== 'block-map' && token.type !== 'block-seq' && token.type !== 'flow-collection') continue;
    if (depth >= MAX_DEPTH) return true;
    for (const item of token.items) {
      if ('key' in item && item.key) stack.push({ token: item.key, depth: depth + 1 });
      if (item.value) stack.push({ token: item.value, depth: depth + 1 });
    }
  }
  return false;
}
