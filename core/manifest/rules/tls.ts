import type { ManifestProblem } from '../issues.js';
import { isMapping } from '../path.js';

/**
 * Cross-field rules of `runtime.tls` (spec, runtime.tls): with TLS on, exactly one of
 * certificate / certificate_file and of key / key_file; client_auth_mode request or
 * required needs one CA source; the two CA sources never together. Checked on the raw
 * document so they are reported even when another TLS field has a type error.
 */
export function tlsProblems(document: Record<string, unknown>, warnings: string[]): ManifestProblem[] {
  const runtime = document.runtime;
  const tls = isMapping(runtime) ? runtime.tls : undefined;
  if (!isMapping(tls)) return [];
  const problems: ManifestProblem[] = [];
  const has = (key: string) => tls[key] !== undefined && tls[key] !== null;
  const enabled = tls.enabled === true;

  if (enabled) {
    for (const [inline, file, what] of [
      ['certificate', 'certificate_file', 'certificate'],
      ['key', 'key_file', 'private key'],
    ] as const) {
      if (!has(inline) && !has(file)) {
        problems.push({
          path: 'runtime.tls',
          message: `TLS is enabled but no ${what} is configured: set ${inline} (inline PEM or \${ secrets:NAME }) or ${file} (a PEM file path)`,
        });
      } else if (has(inline) && has(file)) {
        problems.push({ path: `runtime.tls.${inline}`, message: `${inline} and ${file} are mutually exclusive: set only one of them` });
      }
    }
  }

  const mode = tls.client_auth_mode;
  if (has('client_auth_ca') && has('client_auth_ca_file')) {
    problems.push({
      path: 'runtime.tls.client_auth_ca',
      message: 'client_auth_ca and client_auth_ca_file are mutually exclusive: set only one of them (client_auth_ca_file is reloaded on SIGHUP, client_auth_ca is read once)',
    });
  } else if ((mode === 'request' || mode === 'required') && !has('client_auth_ca') && !has('client_auth_ca_file')) {
    if (enabled) {
      problems.push({
        path: 'runtime.tls.client_auth_mode',
        message: `client_auth_mode "${mode}" verifies client certificates and needs a CA: set client_auth_ca_file (a PEM bundle path) or client_auth_ca (inline PEM or \${ secrets:NAME })`,
      });
    }
  }
  if (!enabled && (mode === 'request' || mode === 'required')) {
    warnings.push(`runtime.tls.client_auth_mode is "${mode}" but TLS is not enabled (runtime.tls.enabled is not true): client certificates are not requested`);
  }
  return problems;
}
