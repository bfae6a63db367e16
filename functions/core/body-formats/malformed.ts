/**
 * The problem a malformed JSON or YAML body is answered with: 400, naming the line and column of the
 * error (also in the extensions `line` and `column`).
 */
import { HttpProblem } from '../problem.ts';

/** A 400 problem: the body is not valid `format`, for `message`, at `line` and `col` (1-based). */
export function malformed(format: 'JSON' | 'YAML', message: string, { line, col }: { line: number; col: number }): HttpProblem {
  return new HttpProblem(400, `the request body is not valid ${format}: ${message} at line ${line}, column ${col}`, {
    extensions: { line, column: col },
  });
}
