// The shape every route file shared: a function of the app context returning a TypeBox-typed plugin
// that registers its routes against the account database. One place for it keeps route files to routes.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../app-context.ts';

type App = Parameters<FastifyPluginAsyncTypebox>[0];
type Db = AppContext['database']['db'];

export function routeModule(
  register: (app: App, db: Db, ctx: AppContext) => void,
): (ctx: AppContext) => FastifyPluginAsyncTypebox {
  return (ctx) => async (app) => register(app, ctx.database.db, ctx);
}
