import FeatureJSON
import Testing

@Suite("Flat action scan and flat object")
struct FlatActionScanTests {
  /// Documents the scan reads: each value must be what the full parser reads.
  static let accepted = [
    #"{"type":"increment"}"#,
    #"{"type":"set","left":3,"right":-12}"#,
    #" { "type" : "pick" , "entry" : "counter" , "on" : true, "off": false, "none": null } "#,
    #"{"n":0,"type":"x","big":-999999999999999999}"#,
    "{\"type\":\"tab\",\t\"a\":1}\n",
  ]

  /// Documents it leaves to the full parser: other shapes, escapes, fractions, errors.
  static let declined = [
    #"{"type":"set","left":1.5}"#, #"{"type":"set","left":1e3}"#, #"{"type":"a\"b"}"#,
    #"{"type":"x","urls":["a"]}"#, #"{"type":"x","o":{}}"#, #"{"left":3}"#, #"{"type":3}"#,
    #"{"type":"x","type":"y"}"#, #"{"type":"x",}"#, #"{"type":"x"} x"#, #"[1]"#, #""x""#, "",
    #"{"type":"x","n":01}"#, #"{"type":"x","n":-}"#, #"{"type":"x","n":1234567890123456789}"#,
    #"{"type":"caf\#u{e9}"}"#, #"{"type":"x","b":tru}"#, #"{"type":"x""#,
    #"{"type":"x","a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8}"#,
    "{\"type\":\"" + String(repeating: "a", count: 300) + "\"}",
  ]

  @Test(arguments: accepted)
  func readsWhatTheParserReads(_ document: String) throws {
    let scan = try #require(document.withCString { FlatActionScan(utf8CString: $0) })
    let parsed = try #require(try JSONValue.parse(document).objectValue)
    #expect(scan.count == parsed.count)
    #expect(scan.tag == parsed["type"]?.stringValue)
    for key in ["type", "left", "right", "entry", "on", "off", "none", "n", "big", "a"] {
      let value = key.withCString { _ in scanValue(scan, key) }
      #expect(value == parsed[key], "member \(key) of \(document)")
    }
  }

  @Test(arguments: declined)
  func leavesTheRestToTheParser(_ document: String) {
    #expect(document.withCString { FlatActionScan(utf8CString: $0) } == nil, "\(document)")
  }

  @Test func typedReadsAnswerOnlyTheirKind() throws {
    let scan = try #require(#"{"type":"t","n":-7,"s":"x","b":true}"#.withCString { FlatActionScan(utf8CString: $0) })
    #expect(scan.integer("n") == -7)
    #expect(scan.integer("s") == nil)
    #expect(scan.string("s") == "x")
    #expect(scan.string("n") == nil)
    #expect(scan.bool("b") == true)
    #expect(scan.bool("missing") == nil)
    #expect(scan.contains("b") && !scan.contains("c"))
  }

  /// A state's object: any flat object, `type` or not; the rest of the shape rules hold.
  @Test(arguments: accepted + [#"{"left":3}"#, #"{"type":3,"n":-1}"#, "{}", #" {"n":null,"s":"a"} "#])
  func anObjectScanReadsWhatTheParserReads(_ document: String) throws {
    let parsed = try #require(try JSONValue.parse(document).objectValue)
    // The scan points into the document: read it while the C string lives.
    try document.withCString { cString in
      let scan = try #require(FlatActionScan(objectAt: cString))
      #expect(scan.count == parsed.count && scan.tag.isEmpty)
      for key in ["type", "left", "n", "s", "big"] {
        #expect(scanValue(scan, key) == parsed[key], "member \(key) of \(document)")
      }
    }
  }

  @Test(arguments: declined.filter { ![#"{"left":3}"#, #"{"type":3}"#].contains($0) })
  func anObjectScanLeavesTheOtherShapesToTheParser(_ document: String) {
    #expect(document.withCString { FlatActionScan(objectAt: $0) } == nil, "\(document)")
  }

  @Test(arguments: accepted + declined)
  func flatObjectAgreesWithTheParser(_ document: String) {
    let flat = Result { try document.withCString { try FlatObject.parse(utf8CString: $0) } }
    let parsed = Result { try JSONValue.parse(document) }
    switch (flat, parsed) {
    case (.success(let object?), .success(let value)):
      #expect(object.value == value, "\(document)")
    case (.success(nil), .success(let value)):
      // Declined: valid JSON of another shape, or a long object.
      #expect(value.objectValue == nil || (value.objectValue?.count ?? 0) > 32, "\(document)")
    case (.success(nil), .failure):
      // Declined before any object began: the parser says what is wrong.
      break
    case (.failure(let flatError), .failure(let error)):
      #expect("\(flatError)" == "\(error)", "\(document)")
    default:
      Issue.record("flat object and parser disagree on \(document): \(flat) vs \(parsed)")
    }
  }
}

/// The scan's value of a key given at run time (its API takes literal keys).
private func scanValue(_ scan: FlatActionScan, _ key: String) -> JSONValue? {
  switch key {
  case "type": return scan.value("type")
  case "left": return scan.value("left")
  case "right": return scan.value("right")
  case "entry": return scan.value("entry")
  case "on": return scan.value("on")
  case "off": return scan.value("off")
  case "none": return scan.value("none")
  case "n": return scan.value("n")
  case "big": return scan.value("big")
  case "a": return scan.value("a")
  case "s": return scan.value("s")
  default: return nil
  }
}
