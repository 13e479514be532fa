import type { QuarryPlugin } from '../../core/plugins/types.js';
import { quoteIdentifier } from '../../core/engine/sql-text.js';

export const SPICE_CATALOG_PLUGIN_NAME = 'spice-catalog';

/** The catalog Spice serves its datasets in: `spice.public.<dataset>`, `spice.runtime.task_history`. */
const CATALOG = 'spice';

/**
 * Spice's names beside Quarry's own, so SQL written for Spice runs unchanged: a `spice`
 * catalog (an in-memory database attached at start-up) whose `public` schema has a view per
 * dataset (`spice.public.orders` reads `orders`) and whose `runtime` schema has
 * `task_history` when the task-history plugin serves it. The views only name what they read,
 * so they follow every load and refresh, and every rule of the dataset applies through them
 * (read-only keys, per-caller task history, hidden tables).
 */
export function createSpiceCatalogPlugin(): QuarryPlugin {
  return {
    name: SPICE_CATALOG_PLUGIN_NAME,
    apply(runtime) {
      /** The engine's own catalog, where datasets live (`memory`). */
      let home = 'memory';
      const views = (schema: string, name: string, target: string) =>
        runtime.engine.runInternal(`CREATE OR REPLACE VIEW ${quoteIdentifier(CATALOG)}.${quoteIdentifier(schema)}.${quoteIdentifier(name)} AS SELECT * FROM ${target}`);

      // Before datasets register (and before the engine's lockdown, after which nothing may be attached).
      runtime.hooks.startup.tapPromise(SPICE_CATALOG_PLUGIN_NAME, async () => {
        home = String((await runtime.engine.runInternal('SELECT current_database() AS name'))[0]?.['name'] ?? home);
        await runtime.engine.runInternal(`ATTACH ':memory:' AS ${quoteIdentifier(CATALOG)}`);
        await runtime.engine.runInternal(`CREATE SCHEMA ${quoteIdentifier(CATALOG)}.public`);
        await runtime.engine.runInternal(`CREATE SCHEMA ${quoteIdentifier(CATALOG)}.runtime`);
        const taskHistory = await runtime.engine.runInternal("SELECT 1 FROM duckdb_views() WHERE database_name = current_database() AND schema_name = 'runtime' AND view_name = 'task_history'");
        if (taskHistory.length > 0) await views('runtime', 'task_history', [home, 'runtime', 'task_history'].map(quoteIdentifier).join('.'));
      });

      runtime.hooks.datasets.registered.tapPromise(SPICE_CATALOG_PLUGIN_NAME, async ({ dataset }) => {
        // `sales.orders` is spice.sales.orders; a plain name is spice.public.<name>.
        const [schema, name] = dataset.includes('.') ? dataset.split('.') : ['public', dataset];
        if (schema !== 'public') await runtime.engine.runInternal(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(CATALOG)}.${quoteIdentifier(schema!)}`);
        await views(schema!, name!, [home, dataset.includes('.') ? schema! : 'main', name!].map(quoteIdentifier).join('.'));
      });
    },
  };
}
