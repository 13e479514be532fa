/**
 * The metrics seam: any plugin declares an instrument in one line and records into it;
 * the telemetry plugin exports what is here (Prometheus, OTLP). Without it, values are
 * kept in process, readable with `collect()` (tests, /v1/status-style summaries).
 * Names are Spice's (`results_cache_hits`, `query_duration_ms`); the exporter adds prefixes.
 */
export type MetricAttributes = Readonly<Record<string, string | number | boolean>>;

export interface InstrumentOptions {
  description: string;
  unit?: string;
  /**
   * Histograms only: upper bounds of the buckets exporters use (ascending). Without it the
   * exporter's defaults apply, which suit milliseconds (0 ms to 10 s).
   */
  boundaries?: readonly number[];
}

export interface Counter {
  add(value: number, attributes?: MetricAttributes): void;
  /** The series of one attribute set, resolved once: for recorders on the request path. */
  bind(attributes: MetricAttributes): BoundCounter;
}

export interface BoundCounter {
  add(value: number): void;
}

export interface Histogram {
  record(value: number, attributes?: MetricAttributes): void;
  /** The series of one attribute set, resolved once: for recorders on the request path. */
  bind(attributes: MetricAttributes): BoundHistogram;
}

export interface BoundHistogram {
  record(value: number): void;
}

export interface GaugeObservation {
  value: number;
  attributes?: MetricAttributes;
}

export type MetricKind = 'counter' | 'up_down_counter' | 'histogram' | 'gauge';

/** One series of one instrument, as `collect()` reports it. */
export interface MetricPoint {
  attributes: MetricAttributes;
  /** Counters and gauges: the value; histograms: the sum. */
  value: number;
  /** Histograms only: how many values were recorded. */
  count?: number;
  /** Histograms only: every recorded value is kept out of here; exporters bucket them. */
  min?: number;
  max?: number;
}

export interface MetricSnapshot {
  name: string;
  kind: MetricKind;
  description: string;
  unit: string | undefined;
  points: MetricPoint[];
}

/** Subscribers (the telemetry exporter) see every recording as it happens. */
export type MetricListener = (name: string, kind: MetricKind, value: number, attributes: MetricAttributes) => void;

/** One declared instrument, as `onDeclare` announces it. */
export interface InstrumentDeclaration {
  readonly name: string;
  readonly kind: MetricKind;
  readonly options: InstrumentOptions;
}

export type DeclarationListener = (declaration: InstrumentDeclaration) => void;

function snapshotOf(name: string, declared: Declared): MetricSnapshot {
  return {
    name,
    kind: declared.kind,
    description: declared.options.description,
    unit: declared.options.unit,
    points: declared.observe
      ? declared.observe().map((observation) => ({ attributes: observation.attributes ?? {}, value: observation.value }))
      : [...declared.series.values()].map((point) => ({ ...point })),
  };
}

const NO_ATTRIBUTES: MetricAttributes = Object.freeze({});

/** A canonical key of an attribute set (recorded on every request: kept cheap). */
function attributeKey(attributes: MetricAttributes): string {
  const names = Object.keys(attributes);
  if (names.length === 0) return '';
  if (names.length > 1) names.sort();
  let key = '';
  for (const name of names) key += `${name}\u0000${String(attributes[name])}\u0001`;
  return key;
}

interface Declared {
  kind: MetricKind;
  options: InstrumentOptions;
  series: Map<string, MetricPoint>;
  observe?: () => GaugeObservation[];
}

export class MetricsRegistry {
  readonly #instruments = new Map<string, Declared>();
  readonly #listeners = new Set<MetricListener>();
  readonly #declarationListeners = new Set<DeclarationListener>();

  counter(name: string, options: InstrumentOptions): Counter {
    return this.#counter(name, 'counter', options);
  }

  upDownCounter(name: string, options: InstrumentOptions): Counter {
    return this.#counter(name, 'up_down_counter', options);
  }

  histogram(name: string, options: InstrumentOptions): Histogram {
    const declared = this.#declare(name, 'histogram', options);
    const record = (point: MetricPoint, value: number) => {
      point.value += value;
      point.count = (point.count ?? 0) + 1;
      if (value < point.min!) point.min = value;
      if (value > point.max!) point.max = value;
      if (this.#listeners.size > 0) this.#notify(name, 'histogram', value, point.attributes);
    };
    // A series appears with its first value (bound or not).
    let unattributed: MetricPoint | undefined;
    const pointOf = (attributes: MetricAttributes, value: number) => {
      const key = attributeKey(attributes);
      return declared.series.get(key) ?? this.#add(declared, key, { attributes, value: 0, count: 0, min: value, max: value });
    };
    return {
      record: (value, attributes) => record(attributes === undefined ? (unattributed ??= pointOf(NO_ATTRIBUTES, value)) : pointOf(attributes, value), value),
      bind: (attributes) => {
        let point: MetricPoint | undefined;
        return { record: (value) => record((point ??= pointOf(attributes, value)), value) };
      },
    };
  }

  /** A value read when collected (sizes, counts of items, states). */
  gauge(name: string, options: InstrumentOptions, observe: () => GaugeObservation[]): void {
    const declared = this.#declare(name, 'gauge', options);
    declared.observe = observe;
  }

  /** Every instrument with its current series. */
  collect(): MetricSnapshot[] {
    return [...this.#instruments.entries()].map(([name, declared]) => snapshotOf(name, declared));
  }

  /** One instrument with its current series (gauges are observed now), or undefined when not declared. */
  snapshot(name: string): MetricSnapshot | undefined {
    const declared = this.#instruments.get(name);
    return declared && snapshotOf(name, declared);
  }

  /** The current value of one series (counter sum, gauge value, histogram sum), or undefined. */
  value(name: string, attributes: MetricAttributes = {}): number | undefined {
    const snapshot = this.collect().find((metric) => metric.name === name);
    return snapshot?.points.find((point) => attributeKey(point.attributes) === attributeKey(attributes))?.value;
  }

  subscribe(listener: MetricListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Told about every instrument: those already declared at once, later ones as they are
   * declared. Exporters use it to export instruments plugins declare after they started.
   */
  onDeclare(listener: DeclarationListener): () => void {
    this.#declarationListeners.add(listener);
    for (const [name, declared] of this.#instruments) listener({ name, kind: declared.kind, options: declared.options });
    return () => this.#declarationListeners.delete(listener);
  }

  #declare(name: string, kind: MetricKind, options: InstrumentOptions): Declared {
    const existing = this.#instruments.get(name);
    if (existing) {
      if (existing.kind !== kind) throw new Error(`metric ${name} is already declared as a ${existing.kind}`);
      return existing;
    }
    const declared: Declared = { kind, options, series: new Map() };
    this.#instruments.set(name, declared);
    for (const listener of this.#declarationListeners) listener({ name, kind, options });
    return declared;
  }

  #counter(name: string, kind: 'counter' | 'up_down_counter', options: InstrumentOptions): Counter {
    const declared = this.#declare(name, kind, options);
    const add = (point: MetricPoint, value: number) => {
      point.value += value;
      if (this.#listeners.size > 0) this.#notify(name, kind, value, point.attributes);
    };
    let unattributed: MetricPoint | undefined;
    const pointOf = (attributes: MetricAttributes) => {
      const key = attributeKey(attributes);
      return declared.series.get(key) ?? this.#add(declared, key, { attributes, value: 0 });
    };
    return {
      add: (value, attributes) => add(attributes === undefined ? (unattributed ??= pointOf(NO_ATTRIBUTES)) : pointOf(attributes), value),
      bind: (attributes) => {
        let point: MetricPoint | undefined;
        return { add: (value) => add((point ??= pointOf(attributes)), value) };
      },
    };
  }

  /** A new series (a series is never removed). */
  #add(declared: Declared, key: string, point: MetricPoint): MetricPoint {
    declared.series.set(key, point);
    return point;
  }

  #notify(name: string, kind: MetricKind, value: number, attributes: MetricAttributes): void {
    for (const listener of this.#listeners) listener(name, kind, value, attributes);
  }
}
