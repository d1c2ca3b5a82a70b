import { createRequire } from 'node:module';

// undici (about 220 modules, ~4 MB of heap and ~8 MB resident) is only needed once a webhook is
// delivered or tested, so it loads on first use rather than with the service: most processes never
// deliver one. A synchronous require keeps the address guard's API (connector, dispatcher) synchronous;
// undici is CommonJS, so `import 'undici'` elsewhere gets the same instance.
type Undici = typeof import('undici');

let loaded: Undici | undefined;

export function undici(): Undici {
  loaded ??= createRequire(import.meta.url)('undici') as Undici;
  return loaded;
}
