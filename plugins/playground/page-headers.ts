/**
 * Headers of the playground's page and assets. The CSP lets the page load scripts, styles,
 * images and connections from the runtime alone: no inline or eval'd script, no third-party
 * origin, no framing. Style elements (CodeMirror's) carry the per-response nonce.
 */
import { randomBytes } from 'node:crypto';

export function newNonce(): string {
  return randomBytes(18).toString('base64');
}

export function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}'`,
    `style-src-elem 'self' 'nonce-${nonce}'`,
    // Style attributes only: Chromium's own contenteditable editing writes them when typing
    // replaces a selection over several lines of the editor (blocking them only fills the
    // console with violations). An attribute cannot run script, and the page never writes
    // markup from data (text nodes only), so no one else's attribute can get in.
    "style-src-attr 'unsafe-inline'",
    // Chart PNGs are saved from data: and blob: URLs made in the page.
    "img-src 'self' data: blob:",
    "connect-src 'self'",
    "font-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Headers every playground response carries. */
export const HARDENING_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};
