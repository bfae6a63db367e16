/**
 * The problems of a body that cannot be read as a document: 400, its `errors` naming `body`
 * (`unreadableBody`); for malformed JSON or YAML, the line and column of the error too (`malformed`).
 */
import { HttpProblem } from '../problem.ts';

/**
 * A 400 problem: the request body `why` (`is not valid JSON: …`), said in the detail and as the
 * error of `body`, with the extensions given.
 *
 * @example
 * unreadableBody('nests mappings and lists more than 64 deep')
 * // HttpProblem 400 'the request body nests …', errors [{ path: 'body', message: 'nests mappings and lists more than 64 deep' }]
 */
export function unreadableBody(why: string, extensions: Record<string, unknown> = {}): HttpProblem {
  return new HttpProblem(400, `the request body ${why}`, { errors: [{ path: 'body', message: why }], extensions });
}

/** A 400 problem: the body is not valid `format`, for `message`, at `line` and `col` (1-based), also in the extensions `line` and `column`. */
export function malformed(format: 'JSON' | 'YAML', message: string, { line, col }: { line: number; col: number }): HttpProblem {
  return unreadableBody(`is not valid ${format}: ${message} at line ${line}, column ${col}`, { line, column: col });
}
