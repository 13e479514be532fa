import { QuarryError } from '../../errors/quarry-error.js';
import type { ConnectorDataset } from './connector.js';

/**
 * Refuses params a connector does not know (a typo would otherwise be silently ignored),
 * naming the dataset, the key and the accepted keys.
 */
export function checkParamNames(dataset: ConnectorDataset, accepted: readonly string[], code: string): void {
  for (const key of Object.keys(dataset.params)) {
    if (!accepted.includes(key)) {
      throw new QuarryError(code, `dataset ${dataset.name}: params.${key} is not a parameter of ${dataset.scheme}: datasets; accepted: ${accepted.join(', ')}`);
    }
  }
}

/** A required param, or an error naming the dataset and the key. */
export function requiredParam(dataset: ConnectorDataset, key: string, code: string, hint: string): string {
  const value = dataset.params[key];
  if (value === undefined || value === '') throw new QuarryError(code, `dataset ${dataset.name}: params.${key} is required (${hint})`);
  return value;
}

/** One of a fixed set of values, or an error listing them. */
export function choiceParam<T extends string>(dataset: ConnectorDataset, key: string, choices: readonly T[], fallback: T, code: string): T {
  const value = dataset.params[key];
  if (value === undefined) return fallback;
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new QuarryError(code, `dataset ${dataset.name}: params.${key} is "${value}"; accepted: ${choices.join(', ')}`);
}
