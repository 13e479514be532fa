/** The Prometheus text exposition format's content type (its own module: the listener needs it without loading the exporter). */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
