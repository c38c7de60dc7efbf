import CImageCodecs
import FeatureJSON
import FeatureManifest

#if canImport(Glibc)
  import Glibc
#endif

/// `host __image URL ORIGINAL THUMBNAIL MAX-WIDTH MAX-HEIGHT TIMEOUT-MS MAX-BYTES`: fetches one
/// image (or reads it from ORIGINAL when cached), decodes it, writes its thumbnail to THUMBNAIL.
///
/// The host runs it in a short-lived child per image, so a decoder or a download that crashes or
/// hangs costs that image only (the host kills a child past its deadline), whether the plugin
/// runs in a worker or in process. Exit 0: the thumbnail is written; exit 2: one line on stdout
/// says why not.
public enum ImageChild {
  public static let command = "__image"

  public static func run(_ arguments: [String]) -> Int32 {
    // Started by a host that is gone: nobody will look at the thumbnail.
    guard HostChild.endsWithItsHost() else { return 70 }
    guard arguments.count == 7, let maxWidth = Int(arguments[3]), let maxHeight = Int(arguments[4]),
      let timeout = Int(arguments[5]), let maxBytes = Int(arguments[6])
    else {
      say("usage: host __image URL ORIGINAL THUMBNAIL MAX-WIDTH MAX-HEIGHT TIMEOUT-MS MAX-BYTES (internal)")
      return 64
    }
    let (url, original, thumbnailPath) = (arguments[0], arguments[1], arguments[2])
    // The codecs' libraries are loaded before the sandbox (their constructors are the system's):
    // after it, each open of the loader's search would go through the sandbox's supervisor.
    fhimg_preload(url.lowercased().hasPrefix("file://") ? 0 : 1)
    do {
      _ = try Sandbox.apply(sandboxPolicy(url: url, writing: [original, thumbnailPath])) { _ in }
    } catch {
      say("cannot sandbox the image child: \(error.message)")
      return 2
    }
    var bytes = ImageCache.read(original, limit: maxBytes)
    if bytes == nil {
      var source = ImageSource()
      source.maxBytes = maxBytes
      source.timeoutMilliseconds = timeout
      switch source.bytes(of: url) {
      case .success(let fetched):
        bytes = fetched
        // A local file is not copied into the cache; a download is, for the next run.
        if !url.lowercased().hasPrefix("file://") { ImageCache.write(fetched, to: original) }
      case .failure(let failure):
        say(failure.reason)
        return 2
      }
    }
    switch ImageDecoder.thumbnail(bytes ?? [], maxWidth: maxWidth, maxHeight: maxHeight) {
    case .success(let thumbnail):
      guard ImageCache.write(thumbnail.fileBytes, to: thumbnailPath) else {
        say("cannot write the thumbnail to \(thumbnailPath): \(String(cString: strerror(errno)))")
        return 2
      }
      return 0
    case .failure(let failure):
      // A cached original that does not decode is not kept: the next run fetches it again.
      unlink(original)
      say(failure.reason)
      return 2
    }
  }

  /// What fetching `url` and writing `files` needs: the URL's port (or its file), the folders of
  /// the files, and nothing else.
  package static func sandboxPolicy(url: String, writing files: [String]) -> SandboxPolicy {
    let lowered = url.lowercased()
    var reads: [String] = []
    var ports: [UInt16] = []
    if lowered.hasPrefix("file://") {
      // As ImageSource reads it.
      reads.append(String(url.dropFirst(7)).removingPercentEscapes)
    } else {
      // The port as a manifest's need for a URL names it: http 80, https 443, or its own.
      ports =
        Needs(connect: [.setting(name: "url")]).grants(config: ["url": .string(url)], environment: [:])
        .connectPorts
    }
    let writes = files.map { file in file.lastIndex(of: "/").map { String(file[..<$0]) } ?? "." }
    return SandboxPolicy(
      readPaths: Sandbox.systemReadPaths(pluginPath: nil, network: !ports.isEmpty) + reads,
      writePaths: Array(Set(writes)).sorted(), connectPorts: ports, maxMemory: SandboxSettings.defaultMaxMemory,
      maxOpenFiles: 256, noteDescriptor: -1)
  }

  private static func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
  }
}
