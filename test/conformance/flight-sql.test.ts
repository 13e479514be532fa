import test from 'ava';
import { generatedFlightSqlModules } from '../helpers/python-clients.js';
import { declarePythonCases, RO_KEY, RW_KEY } from './conformance-daemon.js';

/**
 * Flight SQL conformance with Arrow's own C++ Flight client (pyarrow.flight) against a real
 * quarryd process: nothing of Quarry's client code is involved. The cases live in
 * test/conformance/python/flight_sql_cases.py; each is reported here as its own test.
 */
await declarePythonCases(test, {
  title: 'pyarrow.flight',
  script: 'flight_sql_cases.py',
  cases: [
    'query_ticket_on_another_connection',
    'prepared_statement_with_bound_parameters',
    'prepared_update_with_several_parameter_rows',
    'statement_update',
    'statement_ingest',
    'plain_doput_path',
    'metadata_commands_match_the_declared_schemas',
    'get_sql_info',
    'basic_handshake_gives_a_bearer_token',
    'spice_sdk_sql_text_descriptor',
    'cancellation_stops_the_engine_query',
    'ten_million_rows_decode_completely',
    'type_round_trips',
    'mid_stream_failure_ends_with_the_engine_error',
  ],
  args: (daemon) => ['--generated', generatedFlightSqlModules(), '--endpoint', daemon.flightEndpoint, '--metrics', daemon.metricsUrl, '--rw-key', RW_KEY, '--ro-key', RO_KEY],
});
