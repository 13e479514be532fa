import { STAGE } from '../../../core/hooks/stages.js';
import type { PluginRuntime } from '../../../core/plugins/types.js';
import { memoise } from '../../../core/metrics/memoise.js';
import { HIT_LANE_ROUTE } from '../../../core/http/hit-lane.js';

/** Label value for requests no route matched: keeps probing scanners from creating a series per URL. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * `http_requests` / `http_requests_duration_ms` from the HTTP listener's responses (every
 * route, 404s and refusals included), and `flight_requests` from the `request` hook, which
 * sees every Flight call. Labels use the route template, never the raw URL, so the number of
 * series stays bounded.
 */
export function recordRequestMetrics(runtime: PluginRuntime): void {
  const metrics = runtime.metrics;
  const httpRequests = metrics.counter('http_requests', { description: 'HTTP requests answered, by method, route template (path) and status code.' });
  const httpDuration = metrics.histogram('http_requests_duration_ms', {
    description: 'Time to answer an HTTP request, in milliseconds, by method, route template (path) and status code.',
    unit: 'ms',
  });
  const flightRequests = metrics.counter('flight_requests', { description: 'Arrow Flight calls received, by gRPC method.' });

  // Route templates, methods and statuses are few: each combination's series is resolved once.
  const seriesOf = memoise((key: string) => {
    const [method = '', path = '', status = ''] = key.split(' ');
    const attributes = { method, path, status };
    return { requests: httpRequests.bind(attributes), duration: httpDuration.bind(attributes) };
  });

  // onResponse runs after the response went out, for every route of the instance.
  runtime.http.addHook('onResponse', (request, reply, done) => {
    const series = seriesOf(`${request.method} ${request.routeOptions.url ?? UNMATCHED_ROUTE} ${reply.statusCode}`);
    series.requests.add(1);
    series.duration.record(reply.elapsedTime);
    done();
  });
  // Cache hits the lane in front of fastify answered: the same series (always this one so far).
  const laneHits = seriesOf(`POST ${HIT_LANE_ROUTE} 200`);
  runtime.httpHitLane.observe({
    answered: (request, statusCode, elapsedMs) => {
      const series = request.method === 'POST' && statusCode === 200 ? laneHits : seriesOf(`${request.method} ${HIT_LANE_ROUTE} ${statusCode}`);
      series.requests.add(1);
      series.duration.record(elapsedMs);
    },
  });

  runtime.hooks.request.tap({ name: 'telemetry', stage: STAGE.OBSERVE_FIRST }, (request) => {
    if (request.protocol !== 'flight') return;
    flightRequests.add(1, { method: flightMethodName(request.route) });
  });
}

/** `/arrow.flight.protocol.FlightService/DoGet` → `DoGet`. */
export function flightMethodName(route: string): string {
  const slash = route.lastIndexOf('/');
  return slash >= 0 && slash < route.length - 1 ? route.slice(slash + 1) : route;
}
