/**
 * One operation of a path in the OpenAPI document: its tag, parameters, request body and answers (the
 * 200, a GET's 304, those it describes itself, and its problems).
 */
import { DOCUMENT_MEDIA_TYPES } from '../body/media-types.ts';
import { ETAG_HEADERS, IF_NONE_MATCH, isConditional, NOT_MODIFIED_REF } from './conditional.ts';
import { pathParameters } from './paths.ts';
import { CREDENTIAL_PROBLEMS, PROBLEM_ANSWERS, problemName } from './problem-answers.ts';
import { body } from './request-body.ts';
import type { SchemaNames } from './schema-names.ts';
import type { DescribedOperation, Json } from './types.ts';
import { inlineSchema, objectShape } from './zod-schemas.ts';

/** One operation of a path. */
export function operation(op: DescribedOperation, names: SchemaNames, secured: boolean, example: unknown): Json {
  const shape = objectShape(op.request);
  const params = shape?.params === undefined ? undefined : objectShape(shape.params);
  const parameters: Json[] = pathParameters(op.route.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: params?.[name] === undefined ? { type: 'string' } : inlineSchema(params[name]),
  }));
  const query = shape?.query === undefined ? undefined : inlineSchema(shape.query);
  for (const [name, schema] of Object.entries(query?.properties ?? {})) {
    parameters.push({ name, in: 'query', required: query?.required?.includes(name) ?? false, schema });
  }
  if (op.websocket) parameters.push({ name: 'Upgrade', in: 'header', required: true, schema: { type: 'string', enum: ['websocket'] } });
  for (const [name, header] of Object.entries(op.headers ?? {})) parameters.push({ name, in: 'header', required: false, ...header });
  const conditional = isConditional(op);
  if (conditional) parameters.push(IF_NONE_MATCH);
  const requestBody = body(op, shape?.body, names);

  const answers: Record<string, Json> = {};
  if (op.websocket) answers['101'] = { description: 'Switching Protocols: the websocket is open' };
  if (op.response !== undefined) {
    const media = { schema: names.ref(op.response), ...(example === undefined ? {} : { example }) };
    const types = op.streamed !== undefined ? [op.streamed] : op.route.answer === 'document' ? DOCUMENT_MEDIA_TYPES : ['application/json'];
    answers['200'] = {
      description: op.route.summary,
      ...(conditional ? { headers: ETAG_HEADERS } : {}),
      content: Object.fromEntries(types.map((type) => [type, media])),
    };
  }
  if (op.textAnswer !== undefined) {
    answers['200'] = { description: op.route.summary, content: Object.fromEntries(op.textAnswer.map((type) => [type, { schema: { type: 'string' } }])) };
  }
  if (op.events !== undefined) answers['200'] = { description: op.route.summary, content: { 'text/event-stream': { schema: names.ref(op.events) } } };
  if (conditional) answers['304'] = NOT_MODIFIED_REF;
  for (const [status, answer] of Object.entries(op.answers ?? {})) {
    answers[status] = {
      description: answer.description,
      ...(answer.headers === undefined ? {} : { headers: answer.headers }),
      content: { 'application/json': { schema: names.ref(answer.schema) } },
    };
  }
  const derived = [
    ...(parameters.some((p) => p.in === 'path') ? [400, 404] : []),
    ...(query === undefined ? [] : [400, 422]),
    ...(requestBody === undefined ? [] : [400, 413, 415, 422]),
  ];
  const problems = new Set([...(op.problems ?? derived), ...(secured && op.route.public !== true ? CREDENTIAL_PROBLEMS : []), 500]);
  for (const status of [...problems].sort((a, b) => a - b)) {
    if (PROBLEM_ANSWERS[status] === undefined) throw new Error(`${op.name}: no description of the problem status ${status} (PROBLEM_ANSWERS)`);
    answers[String(status)] ??= { $ref: `#/components/responses/${problemName(status)}` };
  }
  answers.default = { $ref: '#/components/responses/Problem' };

  return {
    operationId: op.name,
    tags: [tagOf(op)],
    summary: op.route.summary,
    ...(op.description === undefined ? {} : { description: op.description }),
    ...(op.route.public === true && secured ? { security: [] } : {}),
    ...(parameters.length === 0 ? {} : { parameters }),
    ...(requestBody === undefined ? {} : { requestBody }),
    responses: answers,
  };
}

/** The tag of an operation: the first segment of its name, the area of an endpoint (`chutes`). */
export function tagOf(op: DescribedOperation): string {
  return op.name.split('-')[0]!;
}
