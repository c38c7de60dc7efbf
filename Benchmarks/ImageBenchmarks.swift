import Foundation
import HostKit

/// A 1,000 x 800 photo-like JPEG: a gradient with fine noise, so the encoder cannot make it trivial.
func benchmarkJPEG() -> [UInt8] {
  let (width, height) = (1000, 800)
  var rgb = [UInt8](repeating: 0, count: width * height * 3)
  var seed: UInt32 = 12345
  for y in 0..<height {
    for x in 0..<width {
      seed = seed &* 1_103_515_245 &+ 12345
      let noise = Int(seed >> 27)
      let index = (y * width + x) * 3
      rgb[index] = UInt8((x * 255 / width + noise) & 0xFF)
      rgb[index + 1] = UInt8((y * 255 / height + noise) & 0xFF)
      rgb[index + 2] = UInt8(((x + y) * 127 / (width + height) + noise) & 0xFF)
    }
  }
  guard let jpeg = ImageEncoder.encode(rgb, width: width, height: height, as: .jpeg(quality: 85)) else {
    fatalError("libjpeg is needed for the image benchmarks")
  }
  return jpeg
}

/// ms to decode `jpeg` and scale it to a 128 x 128 thumbnail (the size the host caches).
func imageThumbnail(_ jpeg: [UInt8], rounds: Int) -> Double {
  var size = 0
  let elapsed = seconds {
    for _ in 0..<rounds {
      guard case .success(let thumbnail) = ImageDecoder.thumbnail(jpeg, maxWidth: 128, maxHeight: 128) else {
        fatalError("the benchmark JPEG must decode")
      }
      size = thumbnail.width
    }
  }
  precondition(size == 128, "a 1000-pixel-wide photo makes a 128-pixel-wide thumbnail")
  return elapsed * 1000 / Double(rounds)
}

/// A kittens-like view of 10 images, all in a disk cache at `cache`.
func cachedGallery(_ jpeg: [UInt8], cache: ImageCache) -> StructuredView {
  guard case .success(let thumbnail) = ImageDecoder.thumbnail(jpeg, maxWidth: 128, maxHeight: 128) else {
    fatalError("the benchmark JPEG must decode")
  }
  _ = cache.prepare()
  var items: [StructuredView.Item] = [.text("Kittens — 10 images")]
  for index in 1...10 {
    let url = "https://cdn2.thecatapi.com/images/bench\(index).jpg"
    ImageCache.write(thumbnail.fileBytes, to: cache.thumbnailPath(of: url))
    items.append(.image(ImageItem(url: url, alt: "  \(index). \(url)")))
  }
  items.append(.text("type 'loadMore' for the next page"))
  return StructuredView(items: items)
}

/// ms to lay out `view` at 100 columns. `warm`: thumbnails in the loader's memory (a redraw);
/// cold: a new loader each time, so all 10 come from the disk cache (the view's first drawing).
func imageRedraw(_ view: StructuredView, cache: ImageCache, warm: Bool, rounds: Int) -> Double {
  // No child is started: every image is cached.
  let settings = ImageLoader.Settings(executable: "/nonexistent/host", cache: cache)
  var loader = ImageLoader(settings: settings) { _ in }
  var drawn = 0
  _ = ImageGallery.lines(view, columns: 100) { loader.status(of: $0.url) }
  let elapsed = seconds {
    for _ in 0..<rounds {
      if !warm { loader = ImageLoader(settings: settings) { _ in } }
      let lines = ImageGallery.lines(view, columns: 100) { loader.status(of: $0.url) }
      drawn = lines.filter { $0.contains("▀") }.count
    }
  }
  precondition(drawn > 0, "the cached thumbnails must be drawn")
  return elapsed * 1000 / Double(rounds)
}

/// ms for one image the cache does not have: `host __image` reads a file URL, decodes the JPEG
/// and writes its thumbnail (the child process included).
func imageMissThroughChild(_ jpeg: [UInt8], scratch: String, rounds: Int) throws -> Double {
  let file = "\(scratch)/photo.jpg"
  ImageCache.write(jpeg, to: file)
  var times: [Double] = []
  for round in 0..<rounds {
    let process = ChildProcess(
      "\(folder)/host",
      arguments: [
        ImageChild.command, "file://\(file)", "\(scratch)/o\(round)", "\(scratch)/t\(round)", "128", "128",
        "10000", "5242880",
      ])
    times.append(try timedProcess(process) * 1000)
  }
  return median(times)
}

/// The `image.*` rows.
func imageBenchmarks(rounds: Int) throws {
  let jpeg = benchmarkJPEG()
  let scratch = NSTemporaryDirectory() + "featurehost-image-bench-\(getpid())"
  let cache = ImageCache(folder: scratch + "/cache")
  let view = cachedGallery(jpeg, cache: cache)
  report("image.thumbnail", median((0..<rounds).map { _ in imageThumbnail(jpeg, rounds: 20) }), "ms")
  // A redraw (thumbnails in memory) beside a first drawing (all 10 read from the disk cache).
  let pairs = (0..<rounds).map { _ in
    (imageRedraw(view, cache: cache, warm: true, rounds: 50), imageRedraw(view, cache: cache, warm: false, rounds: 50))
  }
  report("image.redraw.cached", median(pairs.map { $0.0 }), "ms")
  report("image.redraw.disk", median(pairs.map { $0.1 }), "ms")
  report("image.miss.child", try imageMissThroughChild(jpeg, scratch: scratch, rounds: rounds * 2), "ms")
  _ = try? FileManager.default.removeItem(atPath: scratch)
}
