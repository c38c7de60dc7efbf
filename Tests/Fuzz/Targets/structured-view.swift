// libFuzzer target: a plugin's structured view (fh.structured_view/1) as the host parses it, then
// lays it out for a terminal. Refused with a reason, or parsed into items whose text has no line
// feed inside a line; layout never fails and stays within the width.
import HostKit

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  guard let start else { return 0 }
  let json = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
  do {
    let view = try StructuredView.parse(json)
    // One line of text per item; no items, no text (`"".split` still gives one empty line).
    precondition(
      view.items.isEmpty
        ? view.text.isEmpty
        : view.text.split(separator: "\n", omittingEmptySubsequences: false).count == view.items.count)
    let red = Thumbnail(width: 2, height: 3, rgb: [UInt8](repeating: 200, count: 18))
    let lines = ImageGallery.lines(view, columns: 40) { item in
      item.url.count % 3 == 0 ? .ready(red) : item.url.count % 3 == 1 ? .loading : .failed("no")
    }
    precondition(lines.count >= view.items.filter { if case .text = $0 { true } else { false } }.count)
  } catch {
    precondition(!error.message.isEmpty, "a refusal says why")
  }
  return 0
}
