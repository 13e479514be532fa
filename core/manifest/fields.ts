import { z } from 'zod';
import { durationSchema } from '../units.js';

/**
 * Field builders shared by the core's and the plugins' manifest sections, so the same
 * kind of field gives the same message everywhere.
 */

/** A map of strings (numbers and booleans are accepted and kept as text, as YAML users expect). */
export function stringMap() {
  return z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String));
}

/** A duration that must be greater than zero. */
export function positiveDuration() {
  return durationSchema().refine((ms) => ms > 0, 'expected a duration greater than 0, e.g. 30s');
}

/** A duration of at least `minimumMs`, with the reason in the message. */
export function durationAtLeast(minimumMs: number, minimumText: string, advice: string) {
  return durationSchema().refine((ms) => ms >= minimumMs, `expected a duration of at least ${minimumText}; ${advice}`);
}

/** A whole number greater than zero. */
export function positiveInteger() {
  return z.number().int().positive();
}
