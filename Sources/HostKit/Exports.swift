// The engine's API speaks in manifests (`PluginRecord.manifest`, `ActionLine.usage`), so its
// users get the model with `import HostKit`.
@_exported import FeatureManifest
// Plugins, instances, errors and the sandbox live in the module a worker process runs alone.
@_exported import WorkerKit
