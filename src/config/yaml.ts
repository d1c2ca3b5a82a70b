import { createRequire } from 'node:module';

// YAML is read only when CARRIERS_CONFIG or TERMINALS_CONFIG names a YAML file, so the parser
// (about 75 modules) loads then, not with every process. Synchronous: configuration is read
// synchronously (loadConfig). yaml is CommonJS under Node, the same instance an import would get.
type Yaml = typeof import('yaml');

let yaml: Yaml | undefined;

export function parseYaml(text: string): unknown {
  yaml ??= createRequire(import.meta.url)('yaml') as Yaml;
  return yaml.parse(text);
}
