// swift-tools-version: 6.0
import PackageDescription

let crossModule: [SwiftSetting] = [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]

// The engine's release build leaves out the runtime's exclusivity checks (each access to a class's
// stored property, or to a variable a closure captures, registered and looked up at run time);
// the compiler's static checks stay, and debug builds (every test) still check at run time. A
// million piped lines: 1,084 -> 934 ms in a worker, 826 -> 733 ms in process (BENCHMARKS.md).
let engineSpeed: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

// Plugins under Plugins/ are feature plugins (dynamic libraries loaded by the host with dlopen),
// not SwiftPM package plugins; every target there names its path.
let package = Package(
  name: "FeatureHost",
  products: [
    .executable(name: "host", targets: ["host"]),
    // What a worker process runs (`host __worker` without Foundation): started by the host.
    .executable(name: "host-worker", targets: ["host-worker"]),
    .library(name: "FeatureKit", targets: ["FeatureKit"]),
    .library(name: "FeatureTesting", targets: ["FeatureTesting"]),
    .plugin(name: "ActionDecoding", targets: ["ActionDecoding"]),
    .library(name: "Counter", type: .dynamic, targets: ["CounterFeature"]),
    .library(name: "Kittens", type: .dynamic, targets: ["KittensFeature"]),
    // Kittens' http(s) client, opened by the plugin at its first http(s) fetch; plugin discovery
    // skips `*_private.so`.
    .library(name: "KittensHTTP_private", type: .dynamic, targets: ["KittensHTTP"]),
    .library(name: "Levels", type: .dynamic, targets: ["LevelsFeature"]),
    .library(name: "CExample", type: .dynamic, targets: ["CExample"]),
    .library(name: "Home", type: .dynamic, targets: ["HomeFeature"]),
  ],
  targets: [
    // The C contract between host and plugins.
    .target(name: "FeatureABI", path: "Sources/FeatureABI"),
    .systemLibrary(
      name: "CFFI",
      path: "Sources/CFFI",
      pkgConfig: "libffi",
      providers: [.apt(["libffi-dev"])]
    ),
    // Plugins specialize FeatureKit's generic dispatch path for their feature: cross-module
    // optimization makes its bodies (and FeatureJSON's, and the features' synthesized Codable)
    // available to them, so a feature's action decoding compiles against the concrete decoder.
    // Writes each feature module's action decoder at build time (FeatureKit's FlatActionDecodable).
    // Unoptimized even in release: it reads a few enums per build, and a first `./host` waits for
    // it (built first, before the build can be planned, then again as a product): -O took 3-4 s a
    // time where -Onone takes 1-1.5 s.
    .executableTarget(
      name: "ActionCodegen", path: "Sources/ActionCodegen", swiftSettings: [.unsafeFlags(["-Onone"])]),
    .plugin(
      name: "ActionDecoding", capability: .buildTool(), dependencies: ["ActionCodegen"],
      path: "Sources/ActionDecodingPlugin"),
    .target(name: "FeatureJSON", path: "Sources/FeatureJSON", swiftSettings: crossModule),
    // The manifest model, one for both sides: FeatureKit encodes it, HostKit decodes and checks it.
    .target(
      name: "FeatureManifest", dependencies: ["FeatureJSON"], path: "Sources/FeatureManifest",
      swiftSettings: crossModule),
    // FeatureKit's weak fh_plugin_entry_v1: it calls the export record the build plugin writes
    // into a feature module, so a feature's module is its plugin.
    .target(name: "FeatureKitEntry", dependencies: ["FeatureABI"], path: "Sources/FeatureKitEntry"),
    .target(
      name: "FeatureKit", dependencies: ["FeatureABI", "FeatureKitEntry", "FeatureJSON", "FeatureManifest"],
      path: "Sources/FeatureKit", swiftSettings: crossModule),
    // JPEG and PNG decoding and image fetching for views with images: libjpeg, libpng and
    // libcurl are loaded with dlopen at first use, so the host builds and runs without them.
    .target(name: "CImageCodecs", path: "Sources/CImageCodecs", linkerSettings: [.linkedLibrary("dl")]),
    // The worker's sandbox: limits, Landlock, seccomp and refusal notices, in raw system calls.
    .target(name: "CSandbox", path: "Sources/CSandbox", linkerSettings: [.linkedLibrary("pthread")]),
    // The rings a worker and the host share for calls and callbacks, with their futex wake-ups.
    .target(name: "CWorkerRing", path: "Sources/CWorkerRing"),
    // The worker a run's first feature takes, started before the host's own start-up.
    .target(name: "CEarlyWorker", dependencies: ["CWorkerRing"], path: "Sources/CEarlyWorker"),
    // The devtools page's HTTP server: libmicrohttpd is loaded with dlopen when a page is served,
    // so the host builds and runs without it.
    .target(name: "CMicroHTTPD", path: "Sources/CMicroHTTPD", linkerSettings: [.linkedLibrary("dl")]),
    // What a worker process runs: loading a plugin, its instance, the sandbox and the worker's end
    // of the channel; and the scanner and image children. Without Foundation (a worker starts in
    // half the time without it).
    .target(
      name: "WorkerKit",
      dependencies: ["FeatureABI", "FeatureJSON", "FeatureManifest", "CFFI", "CImageCodecs", "CSandbox", "CWorkerRing"],
      path: "Sources/WorkerKit", swiftSettings: engineSpeed),
    .target(
      name: "HostKit",
      dependencies: [
        "WorkerKit", "FeatureABI", "FeatureJSON", "FeatureManifest", "CFFI", "CImageCodecs", "CSandbox", "CWorkerRing",
        "CMicroHTTPD", "CEarlyWorker",
      ],
      path: "Sources/HostKit", swiftSettings: engineSpeed
    ),
    .executableTarget(name: "host", dependencies: ["HostKit"], path: "Sources/host"),
    .executableTarget(name: "host-worker", dependencies: ["WorkerKit"], path: "Sources/host-worker"),
    .target(name: "FeatureTesting", dependencies: ["HostKit", "FeatureJSON"], path: "Sources/FeatureTesting"),

    // A Swift feature is one module and its plugin library the product of that module alone (the
    // ActionDecoding build plugin writes its entry); tests and benchmarks link the same module.
    .target(name: "CounterFeature", dependencies: ["FeatureKit"], path: "Plugins/Counter", swiftSettings: crossModule,
      plugins: ["ActionDecoding"]),

    .target(name: "KittensFeature", dependencies: ["FeatureKit", "FeatureJSON"], path: "Plugins/Kittens/Feature", swiftSettings: crossModule,
      plugins: ["ActionDecoding"]),
    .target(name: "KittensHTTP", path: "Plugins/Kittens/HTTP"),
    .target(name: "LevelsFeature", dependencies: ["FeatureKit"], path: "Plugins/Levels", swiftSettings: crossModule,
      plugins: ["ActionDecoding"]),
    // The C example: a feature written against feature_abi.h alone. SwiftPM wants a folder of
    // public headers; nothing imports this target, so its own folder serves. The folder also
    // holds the linker version script and the Makefile of the hand-built variant.
    .target(
      name: "CExample",
      dependencies: ["FeatureABI"],
      path: "Plugins/CExample",
      exclude: ["exports.map", "Makefile"],
      publicHeadersPath: "."
    ),

    .target(name: "HomeFeature", dependencies: ["FeatureKit"], path: "Plugins/Home", swiftSettings: crossModule,
      plugins: ["ActionDecoding"]),

    .executableTarget(
      name: "Benchmarks",
      dependencies: ["HostKit", "FeatureJSON", "CounterFeature", "KittensFeature", "LevelsFeature", "CIPCFloor"],
      path: "Benchmarks", exclude: ["CIPCFloor"]
    ),
    .target(name: "CIPCFloor", dependencies: ["CWorkerRing"], path: "Benchmarks/CIPCFloor"),

    .testTarget(name: "FeatureJSONTests", dependencies: ["FeatureJSON"], path: "Tests/FeatureJSONTests"),
    .testTarget(
      name: "FeatureManifestTests", dependencies: ["FeatureManifest", "FeatureJSON"], path: "Tests/FeatureManifestTests"),
    .testTarget(
      name: "FeatureTestingTests",
      dependencies: [
        "FeatureTesting", "HostKit", "FeatureJSON", "CounterFeature", "LevelsFeature", "KittensFeature", "host",
      ],
      path: "Tests/FeatureTestingTests"
    ),
    .testTarget(
      name: "FeatureKitTests",
      dependencies: ["FeatureKit", "FeatureJSON", "CounterFeature", "LevelsFeature", "KittensFeature", "HomeFeature"],
      path: "Tests/FeatureKitTests"
    ),
    .testTarget(name: "ActionCodegenTests", dependencies: ["ActionCodegen"], path: "Tests/ActionCodegenTests"),
    .testTarget(
      name: "KittensTests",
      dependencies: ["KittensFeature", "KittensHTTP", "FeatureKit", "FeatureJSON", "HostKit", "FeatureTesting", "host"],
      path: "Tests/KittensTests"
    ),
    .testTarget(
      name: "LevelsTests",
      dependencies: ["LevelsFeature", "FeatureKit", "FeatureJSON", "HostKit", "FeatureTesting", "host"],
      path: "Tests/LevelsTests"
    ),
    .testTarget(
      name: "HostKitTests",
      dependencies: ["HostKit", "FeatureJSON", "FeatureTesting", "host"],
      path: "Tests/HostKitTests"
    ),
    .testTarget(
      name: "ValidateTests",
      dependencies: ["HostKit", "FeatureJSON", "FeatureTesting", "host"],
      path: "Tests/ValidateTests"
    ),
  ]
)

// `./host` builds what running needs, in one `swift build` so that its modules compile side by
// side: with FEATUREHOST_BUILD=run the package leaves out the benchmarks, the test support and the
// tests. Every target left builds exactly as without it, so a later `swift build` reuses them.
if Context.environment["FEATUREHOST_BUILD"] == "run" {
  let notForRunning: Set<String> = ["Benchmarks", "CIPCFloor", "FeatureTesting"]
  package.products.removeAll { notForRunning.contains($0.name) }
  package.targets.removeAll { $0.type == .test || notForRunning.contains($0.name) }
}
