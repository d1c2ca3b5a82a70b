// Writes docs/errors.md from the error catalogue (src/errors/catalogue.ts): `npm run docs:errors`.
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorsMarkdown } from '../src/errors/catalogue.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
writeFileSync(join(root, 'docs', 'errors.md'), errorsMarkdown());
console.log('docs/errors.md written');
