import { z } from 'zod';
import { parseKey } from './keys.js';

/**
 * `runtime.auth`: API-key authentication (`api-key`, or its Spice alias `api_key`).
 * A key is a string, optionally suffixed `:rw` (read-write) or `:ro` (read-only, the
 * default); `${ secrets:NAME }` references are replaced after validation.
 */
export const apiKeySettingsSchema = z.strictObject({
  enabled: z.boolean().default(true).describe('API-key authentication on or off (default true).'),
  keys: z
    .array(z.string())
    .default([])
    .describe("Accepted keys; any one authenticates a request. Suffix :rw for read-write, :ro (default) for read-only, :admin for read-write and every caller's task history. ${ secrets:NAME } allowed."),
});

export type ApiKeySettings = z.output<typeof apiKeySettingsSchema>;

export const authSchema = z
  .strictObject({
    'api-key': apiKeySettingsSchema.optional(),
    api_key: apiKeySettingsSchema.optional().describe('Alias of api-key (Spice spelling).'),
  })
  .superRefine((auth, context) => {
    if (auth['api-key'] && auth.api_key) {
      context.addIssue({ code: 'custom', path: ['api_key'], message: 'api_key is an alias of api-key and both are set: keep one of them' });
      return;
    }
    const key = auth['api-key'] ? 'api-key' : 'api_key';
    const settings = auth[key];
    if (settings?.enabled && settings.keys.length === 0) {
      context.addIssue({ code: 'custom', path: [key, 'keys'], message: 'API-key auth is enabled but no keys are configured; add keys or set enabled: false' });
    } else if (settings?.enabled && settings.keys.every((entry) => parseKey(entry).key === '')) {
      // Checked here too (not only at start-up), so --check says it: written keys only; a secret that resolves empty is found at start.
      context.addIssue({ code: 'custom', path: [key, 'keys'], message: 'every configured key is empty (":rw" alone is a permission without a key), so no request could authenticate; add a key or set enabled: false' });
    }
  })
  // One spelling downstream: consumers read `auth['api-key']`.
  .transform((auth): { 'api-key'?: ApiKeySettings } => {
    const settings = auth['api-key'] ?? auth.api_key;
    return settings ? { 'api-key': settings } : {};
  })
  .optional()
  .describe('Authentication of runtime endpoints. Absent: no authentication.');

export type AuthConfig = z.output<typeof authSchema>;
