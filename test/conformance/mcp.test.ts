import test from 'ava';
import { declarePythonCases, RO_KEY } from './conformance-daemon.js';

/**
 * MCP conformance with the official Python MCP SDK (streamable HTTP) and raw http.client
 * requests. Cases: test/conformance/python/mcp_cases.py.
 */
await declarePythonCases(test, {
  title: 'python mcp sdk',
  script: 'mcp_cases.py',
  cases: [
    'initialize_and_list_tools',
    'each_tool_answers',
    'sql_tool_reports_failures_as_tool_errors',
    'sql_tool_is_sandboxed',
    'sessions_are_issued_and_end',
    'auth_is_required',
    'host_header_is_checked',
    'a_current_client_connects_in_auto_mode',
    'the_2026_07_28_revision_pinned',
    'an_unknown_revision_gets_the_supported_list',
  ],
  args: (daemon) => ['--base', daemon.baseUrl, '--key', RO_KEY],
});
