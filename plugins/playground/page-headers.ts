/**
 * Headers of the playground's page and assets. The CSP lets the page load scripts, styles,
 * images and connections from the runtime alone: no inline script, no third-party origin, no
 * framing. Styles CodeMirror injects carry the per-response nonce.
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
