/**
 * The version of the plugin API (`quarry/plugin`'s types and the PluginRuntime they describe).
 * It changes when a plugin written for the previous version could break: a hook's arguments,
 * a PluginRuntime member removed or changed. Adding a hook or a member does not change it.
 */
export const PLUGIN_API_VERSION = 1;
