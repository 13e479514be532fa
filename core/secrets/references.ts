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
