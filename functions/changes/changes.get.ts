import { defineRoute } from '../core/route.ts';
import { answerJson } from '../core/answer-json.ts';
import { reply, type Handler, type Reply } from '../core/handler.ts';
import { validateQuery } from '../core/validate.ts';
import { ChangeListSchema, type ChangeList, ChangeListRequestSchema, ChangePageQuerySchema } from './schemas.ts';

export const route = defineRoute('GET /api/v1/changes', 'The changes the device keeps, newest first, a page at a time');
export const request = ChangeListRequestSchema;
export const response = ChangeListSchema;

/**
 * The changes the device keeps (queued by a chute call, PUT hostconfig or POST /api/v1/changes/),
 * newest first, each with its state and timestamped messages: at most `?limit=` (default 50, at most
 * 200), and with `?before=<id>` only those with a smaller id. When older changes are kept, a
 * `Link: </api/v1/changes?limit=50&before=<the page's last id>>; rel="next"` header says where the
 * next page is. `/api/v1/changes/` answers the same.
 *
 * @throws HttpProblem 400 naming `query.limit` or `query.before` when it is not a whole number, 422
 *   naming `query.limit` when it is out of range.
 * @example
 * await handle({ …, query: { limit: '2' } }, device) // reply('[{"id":9,…},{"id":8,…}]', 'application/json', { link: '</api/v1/changes?limit=2&before=8>; rel="next"' })
 */
export const handle: Handler<ChangeList | Reply> = async (input, device) => {
  const { limit, before } = validateQuery(ChangePageQuerySchema, input.query);
  const kept = await device.changes();
  let end = kept.length;
  while (before !== undefined && end > 0 && kept[end - 1]!.id >= before) end--;
  const page = kept.slice(Math.max(end - limit, 0), end).reverse();
  if (end <= limit) return page;
  return reply(answerJson(page), 'application/json', { link: `<${route.path}?limit=${limit}&before=${page.at(-1)!.id}>; rel="next"` });
};
