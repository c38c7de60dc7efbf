// The manifest model is the SDK's too: `import FeatureKit` alone lets an author write
// `Manifest(id: ..., actions: [ActionSpec(...)])`.
@_exported import FeatureManifest
