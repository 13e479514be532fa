import type { ManifestProblem } from '../issues.js';
import { formatPath, isMapping } from '../path.js';

/**
 * Rules across datasets: names must be unique (compared case-insensitively, as SQL
 * identifiers are), and engine-wide `columnar_*` parameters do not belong in a dataset's
 * acceleration.params (spec, runtime.params rule 2).
 */
export function datasetProblems(document: Record<string, unknown>): ManifestProblem[] {
  const datasets = document.datasets;
  if (!Array.isArray(datasets)) return [];
  const problems: ManifestProblem[] = [];
  const firstByName = new Map<string, number>();
  datasets.forEach((dataset: unknown, index) => {
    if (!isMapping(dataset)) return;
    const name = typeof dataset.name === 'string' ? dataset.name : undefined;
    if (name !== undefined) {
      const first = firstByName.get(name.toLowerCase());
      if (first !== undefined) {
        problems.push({
          path: formatPath(['datasets', index, 'name']),
          message: `duplicate dataset name "${name}" (also datasets[${first}]): dataset names are SQL table names and must be unique, ignoring case`,
        });
      } else firstByName.set(name.toLowerCase(), index);
    }
    const acceleration = dataset.acceleration;
    const params = isMapping(acceleration) ? acceleration.params : undefined;
    if (!isMapping(params)) return;
    for (const key of Object.keys(params)) {
      if (!key.startsWith('columnar_')) continue;
      problems.push({
        path: formatPath(['datasets', index, 'acceleration', 'params', key]),
        message: `${key} is an engine-wide setting and is not accepted per dataset${name ? ` (dataset "${name}")` : ''}: set runtime.params.${key} instead`,
      });
    }
  });
  return problems;
}
