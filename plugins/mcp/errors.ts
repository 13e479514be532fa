import { GRPC, defineErrorCodes } from '../../core/errors/codes.js';

/** Error codes of the MCP plugin; registered when the module loads, so docs/errors.md lists them. */
defineErrorCodes({
  MCP_HOST_FORBIDDEN: {
    http: 403,
    grpc: GRPC.PERMISSION_DENIED,
    description: 'A /v1/mcp request carried a `Host` (or `Origin`) not in runtime.mcp.allowed_hosts (unset: localhost, 127.0.0.1, ::1 only); protects local runtimes against DNS rebinding.',
  },
});
