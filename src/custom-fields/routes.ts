import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../app-context.ts';
import { definitionRoutes } from './definition-routes.ts';
import { valueRoutes } from './value-routes.ts';

/** Custom field definitions, their options, and values (flat and nested under entities). */
export function customFieldRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    await app.register(definitionRoutes(ctx));
    await app.register(valueRoutes(ctx));
  };
}
