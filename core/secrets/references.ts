/**
 * The replacement syntax `${ store:NAME }`: `secrets` searches every store, `env` reads
 * the process environment, any other prefix names one store from `secrets:`. Spaces
 * inside the braces are optional, and a reference may sit inside a longer string
 * (`postgres://app:${ secrets:pg_pass }@db/app`).
 */
export interface SecretReference {
  /** The whole `${ ... }` text. */
  readonly text: string;
  readonly store: string;
  readonly name: string;
}

const REFERENCE = /\$\{\s*([A-Za-z0-9_-]+)\s*:\s*([^\s}]+)\s*\}/g;

export function findReferences(text: string): SecretReference[] {
  return [...text.matchAll(REFERENCE)].map((match) => ({ text: match[0], store: match[1]!, name: match[2]! }));
}

/**
 * Every `${` in `text` that does not begin a valid reference (`${ secrets:admin_key`, no `}`;
 * `${ secrets: }`; `${ secrets:a b }`), as written up to the next `}` or 40 characters: such
 * text is a mistake, never a literal to keep (it would become, say, an accepted API key).
 */
export function malformedReferences(text: string): string[] {
  const valid = new Set([...text.matchAll(REFERENCE)].map((match) => match.index));
  const malformed: string[] = [];
  for (let at = text.indexOf('${'); at !== -1; at = text.indexOf('${', at + 2)) {
    if (valid.has(at)) continue;
    const close = text.indexOf('}', at);
    malformed.push(close !== -1 && close - at < 60 ? text.slice(at, close + 1) : `${text.slice(at, at + 40)}...`);
  }
  return malformed;
}

export function hasReference(text: string): boolean {
  return findReferences(text).length > 0;
}

/** Replaces each reference with what `lookup` returns for it (references resolved in order). */
export async function replaceReferences(text: string, lookup: (reference: SecretReference) => Promise<string>): Promise<string> {
  let result = '';
  let last = 0;
  for (const match of text.matchAll(REFERENCE)) {
    const reference = { text: match[0], store: match[1]!, name: match[2]! };
    result += text.slice(last, match.index) + (await lookup(reference));
    last = match.index + match[0].length;
  }
  return result + text.slice(last);
}
