import { z } from 'zod';
import { requiredField } from './messages.js';

/** Object stores shared state may live in: the local filesystem, or an S3-compatible store. */
export const OBJECT_STORE_SCHEMES = ['file', 's3'] as const;

const EXAMPLES = 'e.g. file:///var/lib/quarry/state/ or s3://my-bucket/quarry/state/';

/**
 * Why `text` is not an object-store root URI of the form `<scheme>://<bucket>/<path>/`,
 * or undefined when it is one. `file://` takes a path instead of a bucket
 * (`file:///abs/dir/`, or `file://rel/dir/` relative to the manifest).
 */
export function objectStoreUriProblem(text: string): string | undefined {
  const match = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/(.*)$/.exec(text);
  if (!match) return `expected an object-store URI <scheme>://<bucket>/<path>/, ${EXAMPLES}`;
  const scheme = match[1]!.toLowerCase();
  const rest = match[2]!;
  if (!(OBJECT_STORE_SCHEMES as readonly string[]).includes(scheme)) {
    return `expected an object-store URI with scheme ${OBJECT_STORE_SCHEMES.map((name) => `${name}://`).join(' or ')} (got ${scheme}://), ${EXAMPLES}`;
  }
  if (scheme === 's3' && !/^[^/]+\//.test(rest)) return `expected s3://<bucket>/<path>/ with a bucket name, ${EXAMPLES}`;
  if (scheme === 'file' && rest.replace(/^\/+/, '') === '') return `expected file://<directory>/ naming a directory, ${EXAMPLES}`;
  if (!rest.endsWith('/')) return `expected the URI of a directory, ending in "/", ${EXAMPLES}`;
  return undefined;
}

/** A manifest field holding an object-store root URI (state_location). */
export function objectStoreUriSchema(requiredHint = `an object-store URI, ${EXAMPLES}`) {
  return z
    .string({ error: requiredField(requiredHint) })
    .superRefine((text, context) => {
      const problem = objectStoreUriProblem(text);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    })
    .meta({ pattern: OBJECT_STORE_URI_PATTERN });
}

/** objectStoreUriProblem's rule as one regular expression, for the JSON Schema (editors). */
const OBJECT_STORE_URI_PATTERN = '^(?:[fF][iI][lL][eE]://(?:/*[^/]+.*)/|[sS]3://[^/]+/(?:.*/)?)$';
