import test from 'ava';
import { declarePythonCases, RO_KEY } from './conformance-daemon.js';

/**
 * HTTP conformance with Python's http.client and curl: the status, the headers and whether
 * the body is whole, as clients that are not Node's see them. Cases:
 * test/conformance/python/http_cases.py.
 */
await declarePythonCases(test, {
  title: 'http.client',
  script: 'http_cases.py',
  cases: [
    'failure_in_the_first_rows_is_an_error_status',
    'failure_before_the_response_starts_is_an_error_status',
    'failure_after_the_response_started_cuts_the_body',
    'repeat_of_a_failed_query_is_not_a_cache_hit',
    'trailers_carry_the_error_with_curl',
    'whole_large_results_are_complete',
  ],
  args: (daemon) => ['--base', daemon.baseUrl, '--key', RO_KEY],
});
