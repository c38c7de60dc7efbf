// libFuzzer target: the flow parser and checker.
import HostKit

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  guard let start else { return 0 }
  let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
  _ = try? Flow.load(
    text, file: "fuzz.json", features: ["home", "counter", "levels"],
    steps: ["featurePicked", "dashboardRequested"])
  return 0
}
