/**
 * Named stages order the taps of one hook (tapable's `stage`): lower runs first.
 * Use these instead of relying on plugin order, e.g.
 * `hooks.auth.tapPromise({ name: 'api-key', stage: STAGE.AUTHENTICATE }, fn)`.
 */
export const STAGE = Object.freeze({
  /** Observe first: tracing, request ids, metrics start. */
  OBSERVE_FIRST: -1000,
  /** Transport checks: client certificate, host allow-lists. */
  TRANSPORT: -200,
  /** Establish the caller: API keys, custom schemes. */
  AUTHENTICATE: -100,
  /** Decide whether the caller may do this: read-only keys, dataset access. */
  AUTHORIZE: 0,
  /** Results cache lookup and store. */
  CACHE: 100,
  /** Answer instead of the engine: cluster routing, federation. */
  ROUTE: 200,
  /** Observe last: task history, metrics, audit. */
  OBSERVE_LAST: 1000,
  /** Shutdown order: listeners close before plugins, plugins before the engine. */
  STOP_LISTENERS: -100,
  STOP_PLUGINS: 0,
  STOP_ENGINE: 100,
});
