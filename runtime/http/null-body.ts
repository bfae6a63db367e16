/** Answers without a body (RFC 9110 §15), which a Fetch `Response` refuses one for. */
export const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([204, 205, 304]);
