// The manifest model is the SDK's too: `import FeatureKit` alone lets an author write
// `Manifest(id: ..., actions: [ActionSpec(...)])`.
@_exported import FeatureManifest
// What the build plugin generates for a plain state writes through these.
@_exported import protocol FeatureJSON.JSONObjectWritable
@_exported import struct FeatureJSON.JSONObjectWriter
