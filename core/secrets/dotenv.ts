/**
 * A `.env` file reader: `KEY=value` lines, optional `export `, `#` comments, single
 * quotes (literal), double quotes (with \n, \t, \", \\ escapes, and spanning lines so a
 * PEM certificate fits), and unquoted values cut at ` #`.
 */
export function parseDotenv(text: string): Map<string, string> {
  const values = new Map<string, string>();
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$/.exec(line);
    if (!match) continue;
    const key = match[1]!;
    let rest = match[2]!;
    const quote = rest[0];
    if (quote === '"' || quote === "'" || quote === '`') {
      // A quoted value may continue on the following lines until its closing quote.
      let body = rest.slice(1);
      let closing = findClosingQuote(body, quote);
      while (closing < 0 && index + 1 < lines.length) {
        body += `\n${lines[++index]!}`;
        closing = findClosingQuote(body, quote);
      }
      const inner = closing < 0 ? body : body.slice(0, closing);
      values.set(key, quote === '"' ? unescapeDoubleQuoted(inner) : inner);
      continue;
    }
    const comment = rest.search(/\s#/);
    if (comment >= 0) rest = rest.slice(0, comment);
    values.set(key, rest.trim());
  }
  return values;
}

function findClosingQuote(text: string, quote: string): number {
  for (let index = 0; index < text.length; index++) {
    if (quote === '"' && text[index] === '\\') {
      index++;
      continue;
    }
    if (text[index] === quote) return index;
  }
  return -1;
}

function unescapeDoubleQuoted(text: string): string {
  return text.replace(/\\([nrt"\\])/g, (_, character: string) => ({ n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' })[character] ?? character);
}
