// The engine's API speaks in manifests (`PluginRecord.manifest`, `ActionLine.usage`), so its
// users get the model with `import HostKit`.
@_exported import FeatureManifest
