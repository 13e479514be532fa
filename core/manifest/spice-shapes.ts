import { isMapping } from './path.js';

/**
 * Shapes older Spice pods write that Quarry's schema spells another way, rewritten in the
 * raw document before anything reads it, so every later step (secret stores, validation,
 * --check) sees one shape:
 *
 * - `secrets: { store: env }` (v1beta1 pods) is the list `secrets: [{ from: env }]`.
 */
export function normaliseSpiceShapes(document: Record<string, unknown>): void {
  const secrets = document.secrets;
  if (isMapping(secrets) && Object.keys(secrets).length === 1 && typeof secrets.store === 'string') {
    document.secrets = [{ from: secrets.store }];
  }
}
