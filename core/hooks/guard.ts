import { QuarryError, isQuarryError, toQuarryError } from '../errors/quarry-error.js';

interface TapLike {
  type: 'sync' | 'async' | 'promise';
  name: string;
  fn: (...args: unknown[]) => unknown;
}

interface InterceptableHook {
  intercept(interceptor: { register?: (tap: TapLike) => TapLike }): void;
}

function isHook(value: unknown): value is InterceptableHook {
  return typeof value === 'object' && value !== null && typeof (value as InterceptableHook).intercept === 'function';
}

/**
 * A QuarryError is a deliberate answer (a refusal, a bad request), also when the plugin made it
 * with another copy of Quarry (recognised by its brand and made ours here, statuses kept);
 * anything else is a plugin bug.
 */
function wrapFailure(error: unknown, plugin: string, hook: string): unknown {
  if (isQuarryError(error)) return toQuarryError(error);
  const message = error instanceof Error ? error.message : String(error);
  return new QuarryError('PLUGIN_FAILED', `plugin "${plugin}" failed in hook ${hook}: ${message}`, { cause: error, details: { plugin, hook } });
}

/** Where the time each tap takes goes when someone wants it (-vv); `enabled` is read on every call. */
export interface TapTiming {
  readonly enabled: boolean;
  record(hook: string, plugin: string, ms: number, failed: boolean): void;
}

const NO_TIMING: TapTiming = { enabled: false, record: () => undefined };

/**
 * Wraps every tap of every hook so that what a plugin throws names the plugin and the hook
 * (`plugin "x" failed in hook query.before: ...`), and, when `timing` is enabled, reports how
 * long each tap took. Applied once, when the hooks are created.
 */
export function guardHooks(tree: object, prefix = '', timing: TapTiming = NO_TIMING): void {
  for (const [key, value] of Object.entries(tree)) {
    const hookName = prefix ? `${prefix}.${key}` : key;
    if (!isHook(value)) {
      if (typeof value === 'object' && value !== null) guardHooks(value, hookName, timing);
      continue;
    }
    value.intercept({
      register(tap) {
        const original = tap.fn;
        if (tap.type === 'promise') {
          const rethrow = (error: unknown) => {
            throw wrapFailure(error, tap.name, hookName);
          };
          // Called directly (no extra microtask: these run on every query); a synchronous throw becomes a rejection.
          return {
            ...tap,
            fn: (...args) => {
              try {
                if (!timing.enabled) return Promise.resolve(original(...args)).then(undefined, rethrow);
                const started = performance.now();
                return Promise.resolve(original(...args)).then(
                  (value) => {
                    timing.record(hookName, tap.name, performance.now() - started, false);
                    return value;
                  },
                  (error: unknown) => {
                    timing.record(hookName, tap.name, performance.now() - started, true);
                    return rethrow(error);
                  },
                );
              } catch (error) {
                return Promise.reject(wrapFailure(error, tap.name, hookName));
              }
            },
          };
        }
        if (tap.type === 'sync') {
          return {
            ...tap,
            fn: (...args) => {
              const started = timing.enabled ? performance.now() : 0;
              try {
                const value = original(...args);
                if (started !== 0) timing.record(hookName, tap.name, performance.now() - started, false);
                return value;
              } catch (error) {
                if (started !== 0) timing.record(hookName, tap.name, performance.now() - started, true);
                throw wrapFailure(error, tap.name, hookName);
              }
            },
          };
        }
        return {
          ...tap,
          fn: (...args) => {
            const callback = args.pop() as (error?: unknown, result?: unknown) => void;
            try {
              original(...args, (error?: unknown, result?: unknown) => callback(error ? wrapFailure(error, tap.name, hookName) : error, result));
            } catch (error) {
              callback(wrapFailure(error, tap.name, hookName));
            }
          },
        };
      },
    });
  }
}
