/** RFC 6901: `/data/users/nodes` → ['data', 'users', 'nodes'] (`~1` is `/`, `~0` is `~`). Undefined when not a pointer. */
export function parseJsonPointer(text: string): string[] | undefined {
  if (text === '') return [];
  if (!text.startsWith('/')) return undefined;
  return text
    .slice(1)
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** The value at `tokens` inside `document`, or undefined when any step is missing. */
export function valueAt(document: unknown, tokens: readonly string[]): unknown {
  let node = document;
  for (const token of tokens) {
    if (Array.isArray(node)) node = /^\d+$/.test(token) ? node[Number(token)] : undefined;
    else if (typeof node === 'object' && node !== null) node = (node as Record<string, unknown>)[token];
    else return undefined;
  }
  return node;
}
