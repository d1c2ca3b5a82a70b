import { createRequire } from 'node:module';

// Fastify compiles every route's request validators (ajv) and response serializers
// (fast-json-stringify) when the app starts: generated source, bytecode and closures for every route
// and every status it declares, most of which a running service never answers. These factories wrap
// Fastify's own compilers so that each one compiles on its first use instead: a route pays its
// compilation once, on its first request (as every route did at start), and the ones never used
// cost nothing. What is compiled and how it validates or serializes is unchanged.
//
// Declaring any compiler factory makes Fastify treat validation as custom, which only stops it
// lower-casing the names in header schemas: no route declares one (test/api/lazy-compilers.test.ts).

// Fastify's own compiler packages, resolved from Fastify's location (the versions it would use).
const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));

type Compiled = ((...args: unknown[]) => unknown) & { errors?: unknown };
type Compile = (route: unknown) => Compiled;
type Factory = (...args: unknown[]) => Compile;

function lazySerializers(build: Factory): Factory {
  return (...factoryArgs) => {
    const compile = build(...factoryArgs);
    return (route) => {
      let fn: Compiled | undefined;
      return (...args) => {
        fn ??= compile(route);
        return fn(...args);
      };
    };
  };
}

function lazyValidators(build: Factory): Factory {
  return (...factoryArgs) => {
    const compile = build(...factoryArgs);
    return (route) => {
      let fn: Compiled | undefined;
      // Fastify reads a failed validation's details from the validator's `errors` (ajv's convention).
      const validate: Compiled = (...args) => {
        fn ??= compile(route);
        const result = fn(...args);
        validate.errors = fn.errors;
        return result;
      };
      return validate;
    };
  };
}

/** The `schemaController.compilersFactory` option of a Fastify instance. */
export function lazyCompilersFactory(): { buildValidator: Factory; buildSerializer: Factory } {
  const ajvCompiler = fromFastify('@fastify/ajv-compiler') as () => Factory;
  const serializerSelector = fromFastify('@fastify/fast-json-stringify-compiler') as () => Factory;
  return {
    buildValidator: lazyValidators(ajvCompiler()),
    buildSerializer: lazySerializers(serializerSelector()),
  };
}
