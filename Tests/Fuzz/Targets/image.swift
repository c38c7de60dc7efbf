// libFuzzer target: the image decoders' entry points (JPEG through libjpeg, PNG through libpng,
// anything else refused) on any bytes. A thumbnail, when there is one, fits its box; the header's
// size agrees with what decoded.
import HostKit

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  guard let start else { return 0 }
  let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
  let declared = ImageDecoder.declaredSize(bytes)
  switch ImageDecoder.thumbnail(bytes, maxWidth: 64, maxHeight: 48) {
  case .success(let thumbnail):
    precondition(thumbnail.width >= 1 && thumbnail.width <= 64 && thumbnail.height >= 1 && thumbnail.height <= 48)
    precondition(thumbnail.rgb.count == thumbnail.width * thumbnail.height * 3)
    guard case .success = declared else { preconditionFailure("decoded, but its header was refused") }
  case .failure(let failure):
    precondition(!failure.reason.isEmpty, "a refusal says why")
  }
  return 0
}
