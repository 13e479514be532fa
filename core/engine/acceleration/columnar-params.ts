import { QuarryError } from '../../errors/quarry-error.js';
import type { Logger } from '../../log.js';
import { quoteLiteral } from '../sql-text.js';

/**
 * `runtime.params.columnar_*`: tuning keys of Spice's columnar accelerator, mapped onto the
 * nearest DuckDB setting (docs/engine.md has the table). They are engine-global: set once on
 * the instance before lockdown, so every connection and every accelerated dataset gets them.
 */
export interface ColumnarParams {
  columnar_footer_cache_mb?: number;
  columnar_filter_propagation?: 'enabled' | 'disabled';
  columnar_optimizer_rules?: string;
  columnar_compaction_memory_fraction?: number;
  columnar_sort_merge_min_rows?: number;
  columnar_sort_merge_memory_pool_fraction?: number;
}

/** The compaction fraction is clamped to this range (a smaller buffer flushes tiny row groups, a larger one starves queries). */
export const COMPACTION_FRACTION_RANGE = { min: 0.05, max: 0.5 } as const;

/** DuckDB's optimizer that pushes a hash join's build-side values into the probe side's scan. */
const FILTER_PROPAGATION_OPTIMIZER = 'join_filter_pushdown';

export interface ColumnarSettings {
  /** DuckDB setting name to SQL value literal. */
  readonly settings: Map<string, string>;
  readonly warnings: string[];
}

/**
 * Works out the DuckDB settings. `optimizers` is the engine's list (duckdb_optimizers()),
 * `memoryLimitBytes` and `threads` the instance's, for the compaction buffer.
 */
export function columnarSettings(params: ColumnarParams, engine: { optimizers: readonly string[]; memoryLimitBytes: number; threads: number }): ColumnarSettings {
  const settings = new Map<string, string>();
  const warnings: string[] = [];

  const footer = params.columnar_footer_cache_mb;
  if (footer !== undefined) {
    settings.set('parquet_metadata_cache', footer > 0 ? 'true' : 'false');
    if (footer > 0) {
      warnings.push(`runtime.params.columnar_footer_cache_mb=${footer}: DuckDB's Parquet metadata (footer) cache is switched on, but it has no size limit, so the ${footer} MB bound is not enforced`);
    }
  }

  const disabled = new Set<string>();
  const rules = params.columnar_optimizer_rules?.trim();
  if (rules !== undefined && rules !== 'auto' && rules !== 'all') {
    if (rules === 'none' || rules === 'disabled') {
      for (const name of engine.optimizers) disabled.add(name);
    } else {
      const wanted = rules.split(',').map((name) => name.trim().toLowerCase()).filter((name) => name !== '');
      const unknown = wanted.filter((name) => !engine.optimizers.includes(name));
      if (unknown.length > 0) {
        throw new QuarryError('ENGINE_SETTING_INVALID', `runtime.params.columnar_optimizer_rules: unknown rule${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; use auto, all, none, disabled or a comma-separated list of: ${engine.optimizers.join(', ')}`);
      }
      // A list names the rules that run; every other rule is switched off.
      for (const name of engine.optimizers) if (!wanted.includes(name)) disabled.add(name);
    }
  }
  if (params.columnar_filter_propagation === 'disabled') disabled.add(FILTER_PROPAGATION_OPTIMIZER);
  if (params.columnar_filter_propagation === 'enabled') disabled.delete(FILTER_PROPAGATION_OPTIMIZER);
  if (rules !== undefined || params.columnar_filter_propagation !== undefined) {
    settings.set('disabled_optimizers', quoteLiteral([...disabled].join(',')));
  }

  const fraction = params.columnar_compaction_memory_fraction;
  if (fraction !== undefined) {
    const clamped = Math.min(COMPACTION_FRACTION_RANGE.max, Math.max(COMPACTION_FRACTION_RANGE.min, fraction));
    if (clamped !== fraction) {
      warnings.push(`runtime.params.columnar_compaction_memory_fraction=${fraction} is outside ${COMPACTION_FRACTION_RANGE.min}..${COMPACTION_FRACTION_RANGE.max}; clamped to ${clamped}`);
    }
    // DuckDB's default for this buffer is 20% of memory_limit divided by the thread count.
    const bytes = Math.max(1, Math.floor((engine.memoryLimitBytes * clamped) / Math.max(1, engine.threads)));
    settings.set('write_buffer_row_group_memory_limit', quoteLiteral(`${bytes}B`));
  }

  const minRows = params.columnar_sort_merge_min_rows;
  if (minRows !== undefined) settings.set('dynamic_or_filter_threshold', String(minRows));

  if (params.columnar_sort_merge_memory_pool_fraction !== undefined) {
    warnings.push('runtime.params.columnar_sort_merge_memory_pool_fraction has no effect: DuckDB has one buffer pool shared by every operator and no per-strategy memory pool to size');
  }
  return { settings, warnings };
}

/** Reads what the settings need from the engine, applies them, and logs the warnings. */
export async function applyColumnarParams(
  run: (sql: string) => Promise<Array<Record<string, unknown>>>,
  params: ColumnarParams,
  options: { memoryLimitBytes: number; log: Logger },
): Promise<void> {
  const keys = Object.keys(params).filter((key) => key.startsWith('columnar_'));
  if (keys.length === 0) return;
  const optimizers = (await run('SELECT name FROM duckdb_optimizers() ORDER BY name')).map((row) => String(row['name']));
  const [threadRow] = await run("SELECT current_setting('threads') AS threads");
  const { settings, warnings } = columnarSettings(params, { optimizers, memoryLimitBytes: options.memoryLimitBytes, threads: Number(threadRow?.['threads'] ?? 1) });
  for (const warning of warnings) options.log.warn(warning);
  for (const [name, value] of settings) await run(`SET GLOBAL ${name} = ${value}`);
  options.log.info('columnar params applied', Object.fromEntries(settings));
}
