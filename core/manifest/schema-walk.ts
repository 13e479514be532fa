import type { ZodType } from 'zod';

/**
 * Finds the schema that validates a manifest path. The issue formatter uses it to say
 * "expected a duration" where zod only knows "a string or a number", and the --check
 * printer uses it to write durations and sizes back in manifest notation.
 * It reads zod's definition objects (`_zod.def`), the documented way to introspect zod 4.
 */
interface Definition {
  type: string;
  innerType?: ZodType;
  in?: ZodType;
  shape?: Record<string, ZodType>;
  catchall?: ZodType;
  element?: ZodType;
  valueType?: ZodType;
  options?: ZodType[];
  getter?: () => ZodType;
}

function definition(schema: ZodType): Definition {
  return (schema as unknown as { _zod: { def: Definition } })._zod.def;
}

const wrappers = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

/** Strips optional/default/... wrappers down to the schema that does the work. */
export function unwrap(schema: ZodType): ZodType {
  let current = schema;
  for (let depth = 0; depth < 32; depth++) {
    const def = definition(current);
    if (wrappers.has(def.type) && def.innerType) current = def.innerType;
    else if (def.type === 'lazy' && def.getter) current = def.getter();
    else return current;
  }
  return current;
}

/** The keys a strict object accepts, or undefined when the schema is not an object. */
export function objectKeys(schema: ZodType): string[] | undefined {
  const def = definition(unwrap(schema));
  if (def.type === 'object' && def.shape) return Object.keys(def.shape);
  if (def.type === 'pipe' && def.in) return objectKeys(def.in);
  return undefined;
}

/** The schema of one key or list entry below `schema`, following the input side of pipes. */
export function childSchema(schema: ZodType, segment: PropertyKey): ZodType | undefined {
  const def = definition(unwrap(schema));
  switch (def.type) {
    case 'object': {
      const key = String(segment);
      if (def.shape && Object.hasOwn(def.shape, key)) return def.shape[key];
      return def.catchall && definition(def.catchall).type !== 'never' ? def.catchall : undefined;
    }
    // Paths in issues and documents follow the input side of a pipe (what the user wrote).
    case 'pipe':
      return def.in ? childSchema(def.in, segment) : undefined;
    case 'array':
      return def.element;
    case 'record':
      return def.valueType;
    case 'union':
      for (const option of def.options ?? []) {
        const found = childSchema(option, segment);
        if (found) return found;
      }
      return undefined;
    default:
      return undefined;
  }
}

/** The schema at a path below `root`, or undefined when the path leaves the schema. */
export function schemaAt(root: ZodType, segments: readonly PropertyKey[]): ZodType | undefined {
  let current: ZodType | undefined = root;
  for (const segment of segments) {
    if (!current) return undefined;
    current = childSchema(current, segment);
  }
  return current;
}

export type ValueKind = 'duration' | 'size' | 'other';
const kinds = new WeakMap<ZodType, ValueKind>();

/**
 * Whether a schema parses durations or sizes, found by behaviour rather than by name:
 * a duration schema turns "1h" into 3600000 and a size schema turns "1MiB" into 1048576.
 * Every duration and size field is built by core/units.ts, so this finds them all.
 */
export function valueKind(schema: ZodType): ValueKind {
  const target = unwrap(schema);
  const known = kinds.get(target);
  if (known) return known;
  let kind: ValueKind = 'other';
  if (definition(target).type === 'pipe') {
    const asDuration = target.safeParse('1h');
    const asSize = target.safeParse('1MiB');
    if (asDuration.success && asDuration.data === 3_600_000) kind = 'duration';
    else if (asSize.success && asSize.data === 1_048_576) kind = 'size';
  }
  kinds.set(target, kind);
  return kind;
}
