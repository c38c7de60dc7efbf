// libFuzzer target: the transcript parser (compiled with Sources/host/Check/Transcript.swift).
// Transcript.swift uses HostKit's String helpers, as the host target imports it elsewhere.
import HostKit

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  guard let start else { return 0 }
  let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
  _ = try? Transcript(parsing: text, directory: "/fuzz")
  return 0
}
