import { describe, expect, it } from 'vitest';
import type { Device } from './device/index.ts';
import type { Handler } from './handler.ts';
import { openApiExamples } from './openapi-examples.ts';
import { HttpProblem } from './problem.ts';
import { defineRoute } from './route.ts';

describe('openApiExamples', () => {
  const things = [
    { name: 'gone', size: 0 },
    { name: 'kept', size: 2 },
  ];
  const handle =
    (answer: (params: Record<string, string>) => unknown): Handler =>
    async (input) =>
      answer(input.params);
  const endpoints = [
    { name: 'things-things-get', route: defineRoute('GET /api/v1/things', 'The things'), handle: handle(() => things) },
    {
      name: 'things-thing-get',
      route: defineRoute('GET /api/v1/things/:thing', 'One thing'),
      handle: handle(({ thing }) => {
        if (thing === 'gone') throw new HttpProblem(404, 'gone');
        return things.find((t) => t.name === thing);
      }),
    },
    { name: 'things-thing-put', route: defineRoute('PUT /api/v1/things/:thing', 'Replace a thing'), handle: handle(() => things[1]) },
    { name: 'things-part-get', route: defineRoute('GET /api/v1/things/:thing/parts/:part', 'A part'), handle: handle(() => ({})) },
  ];

  it('answers what each GET answers, path parameters taken from what the device lists until one answers 200', async () => {
    const examples = await openApiExamples(endpoints, {} as Device, { thing: { list: '/api/v1/things', field: 'name' } });
    expect(examples).toEqual(
      new Map<string, unknown>([
        ['things-things-get', things],
        ['things-thing-get', { name: 'kept', size: 2 }],
      ]),
    );
  });

  it('takes given values for a parameter, and goes without an example when none answers', async () => {
    const examples = await openApiExamples(endpoints, {} as Device, { thing: { values: ['gone'] }, part: { values: ['x'] } });
    expect([...examples.keys()]).toEqual(['things-things-get', 'things-part-get']);
  });
});
