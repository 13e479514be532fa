import { DATASET_STATE_NUMBER, type DatasetStatus } from '../../../core/engine/engine-api.js';
import type { PluginRuntime } from '../../../core/plugins/types.js';

/** The acceleration engine a dataset is loaded into, or `none` for datasets read live. */
export function datasetEngine(dataset: DatasetStatus): string {
  return dataset.accelerated ? (dataset.acceleration?.engine ?? 'duckdb') : 'none';
}

/**
 * `dataset_load_state`, `dataset_active_count`, `dataset_load_rows`, `dataset_load_bytes` (read from the engine at each collection) and
 * `dataset_load_errors` (counted on each change into the error state). Called in `startup`,
 * when the engine exists; returns the handler the state watcher calls on each change.
 */
export function recordDatasetMetrics(runtime: PluginRuntime): (dataset: DatasetStatus) => void {
  const metrics = runtime.metrics;
  const engine = runtime.engine;
  metrics.gauge(
    'dataset_load_state',
    { description: 'State of each dataset: 0 initializing, 1 ready, 2 disabled, 3 error, 4 refreshing, 5 shutting down.' },
    () => engine.datasets().map((dataset) => ({ value: DATASET_STATE_NUMBER[dataset.state], attributes: { dataset: dataset.name } })),
  );
  metrics.gauge('dataset_active_count', { description: 'Datasets loaded and serving (ready or refreshing), by acceleration engine (none: read live).' }, () => {
    const counts = new Map<string, number>();
    for (const dataset of engine.datasets()) {
      const key = datasetEngine(dataset);
      const serving = dataset.state === 'ready' || dataset.state === 'refreshing';
      counts.set(key, (counts.get(key) ?? 0) + (serving ? 1 : 0));
    }
    return [...counts].map(([name, value]) => ({ value, attributes: { engine: name } }));
  });
  // The running load's figures, or the last finished load's: a series per accelerated dataset once it has loaded or begun to.
  const loadFigure = (figure: (dataset: DatasetStatus) => number | null | undefined) => () =>
    engine.datasets().flatMap((dataset) => {
      const value = figure(dataset);
      return value === null || value === undefined ? [] : [{ value, attributes: { dataset: dataset.name } }];
    });
  metrics.gauge(
    'dataset_load_rows',
    { description: 'Rows read by the running load or refresh of each dataset so far (none while the engine reads CSV or JSON files, whose rows it only guesses), or written by the last one once it finished.' },
    loadFigure((dataset) => (dataset.progress ? dataset.progress.rows_read : dataset.lastLoad?.rows)),
  );
  metrics.gauge(
    'dataset_load_bytes',
    { description: 'Bytes read by the running load or refresh of each dataset so far (Arrow bytes fetched, or the share of its local files read), or by the last one once it finished.' },
    loadFigure((dataset) => (dataset.progress ? dataset.progress.bytes_read : dataset.lastLoad?.bytes)),
  );
  const loadErrors = metrics.counter('dataset_load_errors', { description: 'Times a dataset failed to load (entered the error state), by dataset.' });
  // Every dataset has a series from the start: a scrape shows 0 rather than nothing.
  for (const dataset of engine.datasets()) loadErrors.add(0, { dataset: dataset.name });
  return (dataset) => {
    if (dataset.state === 'error') loadErrors.add(1, { dataset: dataset.name });
  };
}
