import { GRPC, defineErrorCodes } from '../../core/errors/codes.js';

/** Error codes of the playground plugin; registered when the module loads, so docs/errors.md lists them. */
defineErrorCodes({
  PLAYGROUND_NOT_BUILT: {
    http: 503,
    grpc: GRPC.UNAVAILABLE,
    description: 'The playground page was asked for, but its front end is not built (dist/playground/ is missing or incomplete): run `npm run build` in the checkout, or switch the plugin off with `plugins: [{ name: playground, enabled: false }]`.',
  },
});
