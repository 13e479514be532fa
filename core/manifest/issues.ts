import type { ZodType, core } from 'zod';
import { closestMatch } from '../text/did-you-mean.js';
import { DURATION_EXAMPLE, SIZE_EXAMPLE } from '../units.js';
import { isScalar, joinAlternatives, showValue, typeNoun } from './messages.js';
import { formatPath, hasPath, isMapping, parsePath, valueAt } from './path.js';
import { objectKeys, schemaAt, unwrap, valueKind } from './schema-walk.js';

/** One thing wrong with the manifest: where, and what (the value and what is accepted). */
export interface ManifestProblem {
  path: string;
  message: string;
}

type RawIssue = core.$ZodRawIssue;
type Issue = core.$ZodIssue;

/**
 * The error map passed to every manifest parse. It writes the "what is accepted" half of
 * each message; the formatter below adds the path and the value as the user wrote it.
 * Unknown keys get the object's accepted keys attached, for did-you-mean.
 */
export const manifestErrorMap: core.$ZodErrorMap = (issue: RawIssue) => {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return `required: expected ${typeNoun(issue.expected)}`;
      return `expected ${typeNoun(issue.expected)}`;
    case 'invalid_value':
      return expectedValues(issue.values, issue.input);
    case 'too_small':
      return rangeMessage(issue.origin, issue.minimum, issue.inclusive, 'small', isIntegerSchema(issue));
    case 'too_big':
      return rangeMessage(issue.origin, issue.maximum, issue.inclusive, 'big', isIntegerSchema(issue));
    case 'invalid_format':
      return issue.format === 'regex' ? `expected a string matching ${issue.pattern}` : `expected a valid ${issue.format}`;
    case 'unrecognized_keys': {
      const keys = issue.inst ? objectKeys(issue.inst as unknown as ZodType) : undefined;
      // Carried on the issue to the formatter (zod copies an issue's own fields when finalizing it).
      (issue as { acceptedKeys?: string[] }).acceptedKeys = keys ?? [];
      return 'unknown key';
    }
    case 'invalid_union':
      return issue.inst ? `expected ${unionNoun(issue.inst as unknown as ZodType)}` : 'expected another form of value';
    case 'not_multiple_of':
      return `expected a multiple of ${issue.divisor}`;
    case 'invalid_key':
      return 'invalid key';
    default:
      return undefined;
  }
};

function expectedValues(values: readonly unknown[], input: unknown): string {
  const names = values.map((value) => String(value));
  if (names.length === 1) return `expected ${JSON.stringify(names[0])}`;
  let hint = '';
  // Very short values (v3, 2) are close to every option: a suggestion would be noise.
  if (typeof input === 'string' && input.length >= 3) {
    const sameLetters = names.find((name) => name.toLowerCase() === input.toLowerCase());
    const suggestion = sameLetters ?? closestMatch(input, names);
    if (sameLetters) hint = ` (values are case-sensitive: did you mean "${sameLetters}"?)`;
    else if (suggestion) hint = ` (did you mean "${suggestion}"?)`;
  }
  return `expected one of ${names.join(', ')}${hint}`;
}

function isIntegerSchema(issue: RawIssue): boolean {
  // zod's number schemas expose `format` ("safeint", "int32", ...) once .int() was applied.
  const format = (issue.schema as unknown as { format?: string | null } | undefined)?.format;
  return typeof format === 'string' && /int/.test(format);
}

function rangeMessage(origin: string, bound: number | bigint, inclusive: boolean | undefined, side: 'small' | 'big', integer: boolean): string {
  const limit = Number(bound);
  if (origin === 'string') {
    if (side === 'small' && limit === 1) return 'expected a non-empty string';
    return `expected a string of ${side === 'small' ? 'at least' : 'at most'} ${limit} characters`;
  }
  if (origin === 'array' || origin === 'set') {
    const noun = limit === 1 ? 'entry' : 'entries';
    return `expected ${side === 'small' ? 'at least' : 'at most'} ${limit} ${noun}`;
  }
  const what = integer || origin === 'int' ? 'an integer' : 'a number';
  if (side === 'small') return inclusive === false ? `expected ${what} greater than ${limit}` : `expected ${what} of at least ${limit}`;
  return inclusive === false ? `expected ${what} less than ${limit}` : `expected ${what} of at most ${limit}`;
}

function unionNoun(schema: ZodType): string {
  const def = (unwrap(schema) as unknown as { _zod: { def: { options?: ZodType[] } } })._zod.def;
  const nouns = (def.options ?? []).map((option) => {
    const optionDef = (unwrap(option) as unknown as { _zod: { def: { type: string; entries?: Record<string, unknown> } } })._zod.def;
    if (optionDef.type === 'enum' && optionDef.entries) return `one of ${Object.keys(optionDef.entries).join(', ')}`;
    // "a string, a number or true or false" would read as three-and-a-half choices.
    return optionDef.type === 'boolean' ? 'true/false' : typeNoun(optionDef.type);
  });
  return joinAlternatives([...new Set(nouns)]);
}

/**
 * Turns zod's issues into problems with dotted paths, the value as written in the
 * manifest (not zod's coerced copy of it), and one problem per unknown key.
 */
export function problemsFromIssues(issues: readonly Issue[], document: unknown, root: ZodType): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      const accepted = (issue as { acceptedKeys?: string[] }).acceptedKeys ?? [];
      for (const key of issue.keys) problems.push({ path: formatPath([...issue.path, key]), message: unknownKeyMessage(key, accepted) });
      continue;
    }
    problems.push({ path: formatPath(issue.path), message: withValue(issue, document, root) });
  }
  return dedupeProblems(problems);
}

function unknownKeyMessage(key: string, accepted: readonly string[]): string {
  const suggestion = closestMatch(key, accepted);
  if (suggestion) return `unknown key (did you mean "${suggestion}"?)`;
  return accepted.length > 0 ? `unknown key; accepted keys are ${accepted.join(', ')}` : 'unknown key';
}

function withValue(issue: Issue, document: unknown, root: ZodType): string {
  let message = issue.message;
  const written = hasPath(document, issue.path) ? valueAt(document, issue.path) : issue.input;
  // zod says "a string or a number" for a duration field given a list: say what it means.
  if (issue.code === 'invalid_union' || issue.code === 'invalid_type') {
    const schema = schemaAt(root, issue.path);
    const kind = schema ? valueKind(schema) : 'other';
    if (kind === 'duration') message = `expected a duration, ${DURATION_EXAMPLE}`;
    if (kind === 'size') message = `expected a size, ${SIZE_EXAMPLE}`;
    if (kind !== 'other' && written === undefined) message = `required: ${message}`;
  }
  if (!message.startsWith('expected')) return message;
  if (written === undefined) return message;
  return isScalar(written) ? `invalid value ${showValue(written)}: ${message}` : `${message}, got ${showValue(written)}`;
}

/**
 * Orders problems as their paths appear in the manifest file, so the list reads top to
 * bottom with the file; flag problems (`--set-runtime ...`) and `(root)` come first, and a
 * missing key sorts after the keys its parent has.
 */
export function sortByDocumentOrder(problems: readonly ManifestProblem[], document: unknown): ManifestProblem[] {
  const position = (problem: ManifestProblem): number[] => {
    if (problem.path.startsWith('--') || problem.path === '(root)') return [-1];
    const result: number[] = [];
    let current: unknown = document;
    for (const segment of parsePath(problem.path)) {
      if (typeof segment === 'number') {
        result.push(segment);
        current = Array.isArray(current) ? current[segment] : undefined;
        continue;
      }
      const keys = isMapping(current) ? Object.keys(current) : [];
      const index = keys.indexOf(segment);
      result.push(index < 0 ? keys.length : index);
      current = isMapping(current) ? current[segment] : undefined;
    }
    return result;
  };
  const keyed = problems.map((problem, order) => ({ problem, order, key: position(problem) }));
  keyed.sort((a, b) => compareKeys(a.key, b.key) || a.order - b.order);
  return keyed.map((entry) => entry.problem);
}

function compareKeys(a: readonly number[], b: readonly number[]): number {
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    if (a[index] !== b[index]) return a[index]! - b[index]!;
  }
  return a.length - b.length;
}

export function dedupeProblems(problems: readonly ManifestProblem[]): ManifestProblem[] {
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const key = `${problem.path}\u0000${problem.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The text of MANIFEST_INVALID: the file, then one line per problem. */
export function formatProblems(file: string, problems: readonly ManifestProblem[]): string {
  return `manifest ${file} is invalid:\n${problems.map((problem) => `  - ${problem.path}: ${problem.message}`).join('\n')}`;
}
