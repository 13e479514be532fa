import type { PluginRuntime, QuarryPlugin } from '../../core/plugins/types.js';
import './errors.js';

export const GEO_PLUGIN_NAME = 'geo';

/** `runtime.params.geo` as the core validated it: `enabled`, `disabled` or unset. */
function geoParam(runtime: PluginRuntime): unknown {
  return (runtime.manifest.runtime.params as Record<string, unknown> | undefined)?.['geo'];
}

/** Loads jsts and the function table only when the functions are wanted: a runtime without geo pays nothing. */
async function registerFunctions(runtime: PluginRuntime): Promise<void> {
  const [{ geoFunctions, scalarFunction }, { GeometryDecoder }, { default: WKTReader }] = await Promise.all([
    import('./functions.js'),
    import('./geometry-cache.js'),
    import('jsts/org/locationtech/jts/io/WKTReader.js'),
  ]);
  const decoder = new GeometryDecoder();
  const definitions = geoFunctions(new WKTReader(decoder.factory));
  runtime.engine.addConnectionInitializer(async (connection) => {
    for (const definition of definitions) connection.registerScalarFunction(scalarFunction(definition, decoder));
  });
  runtime.log.info(`registered ${new Set(definitions.map((definition) => definition.name)).size} spatial ST_* functions`);
}

/**
 * Spatial SQL functions (ST_Point, ST_Contains, ST_Buffer, ...) over DuckDB's GEOMETRY type,
 * computed with jsts. Registered only when this plugin is part of the deployment and
 * `runtime.params.geo` is `enabled`, the spec's two conditions.
 */
export function createGeoPlugin(): QuarryPlugin {
  return {
    name: GEO_PLUGIN_NAME,
    apply(runtime) {
      // The engine suggests INSTALL spatial for an ST_ function it does not know: the runtime's switch is this plugin.
      const enabled = geoParam(runtime) === 'enabled';
      runtime.hooks.startup.tapPromise(GEO_PLUGIN_NAME, async () => {
        runtime.engine.sandbox.hintForExtension('spatial', enabled
          ? 'the geo plugin provides the ST_ functions listed in docs/plugins/geo.md, and this one is not among them'
          : 'ST_ functions come with the geo plugin: set runtime.params.geo: enabled');
        if (enabled) await registerFunctions(runtime);
      });
    },
  };
}
