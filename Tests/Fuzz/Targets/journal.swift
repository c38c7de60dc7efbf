// libFuzzer target: the journal reader (header, line scanner, restore point, records, history).
import HostKit

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  guard let start else { return 0 }
  let bytes = [UInt8](UnsafeRawBufferPointer(start: start, count: count))
  guard let journal = try? Journal(bytes: bytes, path: "fuzz.jsonl") else { return 0 }
  _ = try? journal.restorePoint()
  _ = try? journal.restorePoint(stoppingAtDamage: true)
  _ = try? journal.records(stoppingAtDamage: true)
  if let records = try? journal.records() {
    // A journal that reads whole has a seq for every record, never going backwards.
    var last = 0
    for record in records {
      if record.seq < last { fatalError("seq went back from \(last) to \(record.seq)") }
      last = record.seq
    }
    _ = try? journal.history()
  }
  return 0
}
