import test from 'ava';
import { parseOtlpEndpoint } from '../../plugins/telemetry/export/otlp-endpoint.js';
import { prefixName, prometheusName, resourceAttributesFrom } from '../../plugins/telemetry/settings.js';

test('a bare host:port is OTLP/gRPC, port 4317 when left out', (t) => {
  t.deepEqual(parseOtlpEndpoint('collector:4317'), { protocol: 'grpc', address: 'collector:4317' });
  t.deepEqual(parseOtlpEndpoint('otel-collector.internal'), { protocol: 'grpc', address: 'otel-collector.internal:4317' });
  t.deepEqual(parseOtlpEndpoint('[::1]:5317'), { protocol: 'grpc', address: '[::1]:5317' });
  t.deepEqual(parseOtlpEndpoint('[::1]'), { protocol: 'grpc', address: '[::1]:4317' });
});

test('an http(s) URL is OTLP/HTTP, port 4318 and path /v1/metrics when left out', (t) => {
  t.deepEqual(parseOtlpEndpoint('https://otlp.example.com/v1/metrics'), { protocol: 'http', url: 'https://otlp.example.com:4318/v1/metrics' });
  t.deepEqual(parseOtlpEndpoint('http://localhost:9999/v1/metrics'), { protocol: 'http', url: 'http://localhost:9999/v1/metrics' });
  t.deepEqual(parseOtlpEndpoint('http://collector'), { protocol: 'http', url: 'http://collector:4318/v1/metrics' });
  t.deepEqual(parseOtlpEndpoint('https://gateway.example.com:443/otlp/v1/metrics'), { protocol: 'http', url: 'https://gateway.example.com/otlp/v1/metrics' });
  t.deepEqual(parseOtlpEndpoint('collector:4318/v1/metrics'), { protocol: 'http', url: 'http://collector:4318/v1/metrics' });
});

test('unusable endpoints are refused with the accepted forms', (t) => {
  t.throws(() => parseOtlpEndpoint('ftp://collector'), { message: /scheme ftp:\/\/ is not supported.*host:port for OTLP\/gRPC/ });
  t.throws(() => parseOtlpEndpoint('collector:notaport'), { message: /expected host:port/ });
});

test('the prefix joins with _ unless it ends in a separator; Prometheus names replace other characters', (t) => {
  t.is(prefixName(undefined, 'query_executions'), 'query_executions');
  t.is(prefixName('quarry', 'query_executions'), 'quarry_query_executions');
  t.is(prefixName('quarry_', 'query_executions'), 'quarry_query_executions');
  t.is(prefixName('spiceai.', 'query_executions'), 'spiceai.query_executions');
  t.is(prometheusName('spiceai.query_executions'), 'spiceai_query_executions');
});

test('resource attributes: OTEL_RESOURCE_ATTRIBUTES, then OTEL_SERVICE_NAME, then properties', (t) => {
  t.deepEqual(resourceAttributesFrom({}, {}), { 'service.name': 'quarry' });
  t.deepEqual(resourceAttributesFrom({ region: 'eu' }, { OTEL_RESOURCE_ATTRIBUTES: 'service.name=a,k=v%2Cw, broken ,=x', OTEL_SERVICE_NAME: 'b' }), {
    'service.name': 'b',
    k: 'v,w',
    region: 'eu',
  });
  t.deepEqual(resourceAttributesFrom({ 'service.name': 'pod' }, { OTEL_SERVICE_NAME: 'b' }), { 'service.name': 'pod' });
});
