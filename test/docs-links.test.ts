// Every relative link in the repository's Markdown (README, docs/, bench/results/, ...) resolves: the
// file or directory exists, and a #fragment names a heading of the Markdown file it points to (GitHub's
// heading ids). Links inside code blocks and code spans are not links; http(s) and mailto are not checked.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const ROOT = new URL('../', import.meta.url).pathname;
/** Never Markdown of the project: dependencies, git's own files, and the embedded database's default DATA_DIR. */
const SKIP = new Set(['node_modules', '.git']);
const SKIP_AT_ROOT = new Set(['data']);

function markdownFiles(dir: string, root: string): string[] {
  const out: string[] = [];
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    if (SKIP.has(entry.name) || (dir === root && SKIP_AT_ROOT.has(entry.name))) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...markdownFiles(path, root));
    else if (entry.isFile() && entry.name.endsWith('.md')) out.push(path);
  }
  return out;
}

/** The lines of a Markdown file outside fenced code blocks, with code spans blanked. */
function proseLines(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let fence: string | null = null;
  text.split('\n').forEach((raw, i) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(raw)?.[1];
    if (marker && (fence === null || marker.startsWith(fence))) {
      fence = fence === null ? marker : null;
      return;
    }
    if (fence === null) out.push({ line: i + 1, text: raw.replace(/(`+)[^`]*?\1/g, '``') });
  });
  return out;
}

/** GitHub's id for a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function headingIds(text: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | null = null;
  for (const raw of text.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(raw)?.[1];
    if (marker && (fence === null || marker.startsWith(fence))) {
      fence = fence === null ? marker : null;
      continue;
    }
    const heading = fence === null ? /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(raw)?.[1] : undefined;
    if (heading === undefined) continue;
    const plain = heading
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .toLowerCase();
    const base = plain.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  }
  return ids;
}

const LINK = /!?\[(?:[^\]]|\][^(])*?\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;

/** The broken relative links of every Markdown file under `root`, as `file:line: target (why)`. */
function brokenLinks(root: string): string[] {
  const ids = new Map<string, Set<string>>();
  const idsOf = (path: string) => {
    let set = ids.get(path);
    if (!set) {
      set = headingIds(readFileSync(path, 'utf8'));
      ids.set(path, set);
    }
    return set;
  };
  const broken: string[] = [];
  for (const file of markdownFiles(root, root)) {
    for (const { line, text } of proseLines(readFileSync(file, 'utf8'))) {
      for (const match of text.matchAll(LINK)) {
        const target = match[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
        const [pathPart, fragment] = target.split('#', 2) as [string, string | undefined];
        const where = `${relative(root, file)}:${line}: ${target}`;
        const path = pathPart === '' ? file : resolve(dirname(file), decodeURIComponent(pathPart));
        if (!existsSync(path)) {
          broken.push(`${where} (no such file)`);
          continue;
        }
        if (fragment && statSync(path).isFile() && path.endsWith('.md')) {
          if (!idsOf(path).has(decodeURIComponent(fragment).toLowerCase()))
            broken.push(`${where} (no heading #${fragment})`);
        }
      }
    }
  }
  return broken;
}

test('every relative link in *.md resolves (files and #headings)', () => {
  assert.ok(markdownFiles(ROOT, ROOT).some((f) => f.endsWith('/README.md')));
  const broken = brokenLinks(ROOT);
  assert.deepEqual(broken, [], `broken links:\n${broken.join('\n')}`);
});

test('a missing file or heading is found; code is not a link', () => {
  const dir = mkdtempSync(join(tmpdir(), 'docs-links-'));
  try {
    writeFileSync(join(dir, 'b.md'), '# B\n\n## Real heading\n');
    writeFileSync(
      join(dir, 'a.md'),
      [
        '# A',
        '[gone](missing.md), [bad](b.md#nope), [ok](b.md#real-heading), [self](#a), [web](https://x.example/y)',
        '`[code](gone.md)`',
        '```',
        '[fenced](gone.md)',
        '```',
        '![picture](img/none.png)',
      ].join('\n'),
    );
    assert.deepEqual(brokenLinks(dir), [
      'a.md:2: missing.md (no such file)',
      'a.md:2: b.md#nope (no heading #nope)',
      'a.md:7: img/none.png (no such file)',
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('heading ids follow GitHub', () => {
  const ids = headingIds(
    [
      '# Traffic-like reads (`--only traffic`)',
      "### PGlite's memory: shared buffers, and the start's peak",
      '## Configuration: `TERMINALS_CONFIG`',
      '## Notes',
      '## Notes',
      '```sh',
      '# not a heading',
      '```',
    ].join('\n'),
  );
  assert.deepEqual(
    [...ids],
    [
      'traffic-like-reads---only-traffic',
      'pglites-memory-shared-buffers-and-the-starts-peak',
      'configuration-terminals_config',
      'notes',
      'notes-1',
    ],
  );
});
