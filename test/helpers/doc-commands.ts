// The shell commands of a Markdown document, as a reader would type them: the lines of its ```sh
// blocks (optionally only under one heading), joined where a line ends in `\` or a quote is still
// open, with the status a following `# NNN …` comment promises (200 when none does).

export interface DocCommand {
  /** The command as written (continuation lines joined with newlines, as bash reads them). */
  text: string;
  /** The HTTP status its comment promises, or 200. */
  status: number;
  /** `NAME=…`: the variable it sets. */
  assigns?: string;
}

/** The bodies of the ```sh blocks, only those under `heading` (up to the next heading) if given. */
export function shellBlocks(markdown: string, heading?: string): string[] {
  let text = markdown;
  if (heading) {
    const start = text.indexOf(`\n${heading}\n`);
    if (start < 0) throw new Error(`no heading ${heading}`);
    const kept: string[] = [];
    let fenced = false;
    for (const line of text.slice(start + heading.length + 2).split('\n')) {
      if (line.startsWith('```')) fenced = !fenced;
      else if (!fenced && /^#{1,6} /.test(line)) break;
      kept.push(line);
    }
    text = kept.join('\n');
  }
  return [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/** Whether a quote is still open at the end of `text` (shell rules, enough for documentation). */
function openQuote(text: string): boolean {
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote === "'") {
      if (c === "'") quote = null;
    } else if (c === '\\') i++;
    else if (quote === '"') {
      if (c === '"') quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(text[i - 1]!))) {
      const end = text.indexOf('\n', i);
      if (end < 0) break;
      i = end;
    }
  }
  return quote !== null;
}

export function shellCommands(block: string): DocCommand[] {
  const commands: DocCommand[] = [];
  const lines = block.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const comment = /^\s*#\s*(\d{3})\b/.exec(line);
    if (comment) {
      const last = commands.at(-1);
      if (last) last.status = Number(comment[1]);
      continue;
    }
    if (!line.trim() || /^\s*#/.test(line)) continue;
    let text = line;
    while ((text.endsWith('\\') || openQuote(text)) && i + 1 < lines.length) text += `\n${lines[++i]}`;
    const assigns = /^([A-Z_][A-Z0-9_]*)=/.exec(text)?.[1];
    commands.push(assigns ? { text, status: 200, assigns } : { text, status: 200 });
  }
  return commands;
}
