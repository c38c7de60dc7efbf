// libFuzzer target: typed action lines against a catalogue with every argument kind.
import FeatureJSON
import HostKit

let manifest: Manifest = {
  do {
    return try Manifest(
      json: """
        {"id":"levels","name":"Levels","version":"1.0.0","description":"",
         "actions":[{"type":"increment","help":"","arguments":[]},
                    {"type":"set","help":"","arguments":[
                       {"name":"left","type":"integer","help":""},
                       {"name":"right","type":"integer","help":""},
                       {"name":"label","type":"string","help":"","required":false},
                       {"name":"fast","type":"boolean","help":"","required":false},
                       {"name":"rate","type":"number","help":"","required":false}]}]}
        """)
  } catch {
    fatalError("the fuzz catalogue does not parse: \(error)")
  }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  guard let start else { return 0 }
  let line = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
  do {
    let json = try ActionLine.parse(line, manifest: manifest)
    // What a line becomes is always one action object with a string "type".
    guard let value = try? JSONValue.parse(json), value["type"]?.stringValue != nil else {
      fatalError("line \(line.debugDescription) became \(json), which is not an action")
    }
  } catch {
    // Every refusal has a message.
    if error.message.isEmpty { fatalError("empty error for \(line.debugDescription)") }
  }
  return 0
}
