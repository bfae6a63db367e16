import * as z from 'zod/mini';

/** The request of an endpoint that takes no path parameters, no query and no body. */
export const NoInput = z.object({ params: z.object({}), body: z.undefined() });

export const FeatureList = z.array(z.string());
export type FeatureList = z.infer<typeof FeatureList>;
