import type { ManifestProblem } from '../issues.js';
import { formatPath, isMapping } from '../path.js';

/**
 * Rules across views: a view's name is a SQL name beside the datasets', so it must be unique
 * among views and datasets alike (ignoring case, as SQL identifiers are).
 */
export function viewProblems(document: Record<string, unknown>): ManifestProblem[] {
  const views = document.views;
  if (!Array.isArray(views)) return [];
  const datasetNames = new Map<string, number>();
  if (Array.isArray(document.datasets)) {
    document.datasets.forEach((dataset: unknown, index) => {
      if (isMapping(dataset) && typeof dataset.name === 'string' && !datasetNames.has(dataset.name.toLowerCase())) datasetNames.set(dataset.name.toLowerCase(), index);
    });
  }
  const problems: ManifestProblem[] = [];
  const firstByName = new Map<string, number>();
  views.forEach((view: unknown, index) => {
    if (!isMapping(view) || typeof view.name !== 'string') return;
    const key = view.name.toLowerCase();
    const path = formatPath(['views', index, 'name']);
    const dataset = datasetNames.get(key);
    if (dataset !== undefined) {
      problems.push({ path, message: `view "${view.name}" has the name of datasets[${dataset}]: views and datasets share one namespace of SQL names; rename one of them` });
      return;
    }
    const first = firstByName.get(key);
    if (first !== undefined) problems.push({ path, message: `duplicate view name "${view.name}" (also views[${first}]): view names are SQL names and must be unique, ignoring case` });
    else firstByName.set(key, index);
  });
  return problems;
}
