import type { Histogram, Meter, Observable, ObservableResult } from '@opentelemetry/api';
import type { InstrumentDeclaration, MetricAttributes, MetricsRegistry } from '../../../core/metrics/registry.js';

export interface BridgeOptions {
  /** Registry name → exported (prefixed) instrument name. */
  exportedName(name: string): string;
  /** Registry names that must not be exported (runtime.metrics switches). */
  isEnabled(name: string): boolean;
}

/**
 * Exports everything in the metrics registry through one OpenTelemetry meter, including
 * instruments declared after the bridge started. Counters, up-down counters and gauges are
 * observable instruments read from the registry at collection time (so values recorded
 * before start-up are exact); histograms need every value for their buckets, so they are
 * fed as the registry reports recordings.
 */
export class RegistryBridge {
  readonly #histograms = new Map<string, Histogram>();
  readonly #observables: Array<{ observable: Observable; callback: (result: ObservableResult) => void }> = [];
  readonly #stops: Array<() => void> = [];
  readonly #registry: MetricsRegistry;
  readonly #meter: Meter;
  readonly #options: BridgeOptions;

  constructor(registry: MetricsRegistry, meter: Meter, options: BridgeOptions) {
    this.#registry = registry;
    this.#meter = meter;
    this.#options = options;
    this.#stops.push(registry.onDeclare((declaration) => this.#bridge(declaration)));
    this.#stops.push(
      registry.subscribe((name, kind, value, attributes) => {
        if (kind === 'histogram') this.#histograms.get(name)?.record(value, attributes);
      }),
    );
  }

  /** Stops following the registry (the meter provider is shut down by its owner). */
  stop(): void {
    for (const stop of this.#stops.splice(0)) stop();
    for (const { observable, callback } of this.#observables.splice(0)) observable.removeCallback(callback);
  }

  #bridge({ name, kind, options }: InstrumentDeclaration): void {
    if (!this.#options.isEnabled(name)) return;
    const exported = this.#options.exportedName(name);
    const common = { description: options.description, ...(options.unit === undefined ? {} : { unit: options.unit }) };
    if (kind === 'histogram') {
      const boundaries = options.boundaries ? [...options.boundaries] : undefined;
      this.#histograms.set(name, this.#meter.createHistogram(exported, { ...common, ...(boundaries ? { advice: { explicitBucketBoundaries: boundaries } } : {}) }));
      return;
    }
    const observable =
      kind === 'counter'
        ? this.#meter.createObservableCounter(exported, common)
        : kind === 'up_down_counter'
          ? this.#meter.createObservableUpDownCounter(exported, common)
          : this.#meter.createObservableGauge(exported, common);
    const callback = (result: ObservableResult) => {
      for (const point of this.#registry.snapshot(name)?.points ?? []) result.observe(point.value, toOtelAttributes(point.attributes));
    };
    observable.addCallback(callback);
    this.#observables.push({ observable, callback });
  }
}

function toOtelAttributes(attributes: MetricAttributes): Record<string, string | number | boolean> {
  return { ...attributes };
}
