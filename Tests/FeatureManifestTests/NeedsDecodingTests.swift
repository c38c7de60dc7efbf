import FeatureJSON
import FeatureManifest
import Testing

/// A manifest's `needs`: every form reads into the model, every mistake is refused naming the
/// field, and an author's needs read back equal from their JSON.
@Suite("Manifest needs")
struct NeedsDecodingTests {
  /// A manifest holding `needs` (a JSON text) beside the required fields.
  static func manifest(needs: String) -> String {
    #"{"id":"a","name":"A","version":"1","actions":[],"needs":"# + needs + "}"
  }

  @Test func absentNeedsAreNone() throws {
    let manifest = try Manifest(json: #"{"id":"a","name":"A","version":"1","actions":[]}"#)
    #expect(manifest.needs == .none)
    #expect(manifest.needs.isEmpty)
  }

  @Test func everyFormIsRead() throws {
    // given needs with ports, paths and setting references in each kind
    let json = Self.manifest(
      needs: """
        {"connect": [443, {"setting": "endpoint", "environment": "KITTENS_ENDPOINT",
                           "default": "https://api.thecatapi.com/v1/images/search"}],
         "read": ["/usr/share/dict/words", "~/notes", {"setting": "endpoint", "environment": "KITTENS_ENDPOINT"}],
         "write": [{"setting": "folder"}]}
        """)
    // when it is read
    let needs = try Manifest(json: json).needs
    // then each lands in its kind, in order
    #expect(
      needs
        == Needs(
          connect: [
            .port(443),
            .setting(
              name: "endpoint", environment: "KITTENS_ENDPOINT", default: "https://api.thecatapi.com/v1/images/search"),
          ],
          read: [
            .path("/usr/share/dict/words"), .path("~/notes"),
            .setting(name: "endpoint", environment: "KITTENS_ENDPOINT"),
          ],
          write: [.setting(name: "folder")]))
  }

  @Test func anEmptyNeedsObjectIsNone() throws {
    #expect(try Manifest(json: Self.manifest(needs: #"{"connect": [], "read": []}"#)).needs == .none)
  }

  struct Case: CustomTestStringConvertible, Sendable {
    let id: String
    let needs: String
    let message: String
    var testDescription: String { id }
  }

  static let cases: [Case] = [
    Case(id: "not-object", needs: "[443]", message: "manifest needs must be an object, got [443]"),
    Case(
      id: "unknown-kind", needs: #"{"conect": [443]}"#,
      message: "manifest needs has the unknown key 'conect'; it takes connect, read and write"),
    Case(
      id: "unknown-kinds", needs: #"{"net": [], "files": []}"#,
      message: "manifest needs has the unknown keys 'files', 'net'"),
    Case(
      id: "kind-not-array", needs: #"{"read": "/etc"}"#, message: #"manifest needs.read must be an array, got "/etc""#),
    Case(
      id: "port-zero", needs: #"{"connect": [0]}"#,
      message: "manifest needs.connect[0] must be a port (1...65535) or a setting reference, got 0"),
    Case(
      id: "port-too-big", needs: #"{"connect": [80, 70000]}"#,
      message: "manifest needs.connect[1] must be a port (1...65535) or a setting reference, got 70000"),
    Case(
      id: "port-fraction", needs: #"{"connect": [80.5]}"#,
      message: "manifest needs.connect[0] must be a port (1...65535)"),
    Case(
      id: "port-as-string", needs: #"{"connect": ["443"]}"#,
      message: #"manifest needs.connect[0] must be a port (1...65535) or a setting reference, got "443""#),
    Case(
      id: "relative-path", needs: #"{"read": ["data/words"]}"#,
      message: "manifest needs.read[0] 'data/words' is not an absolute path; start it with / or ~/"),
    Case(
      id: "tilde-user", needs: #"{"write": ["~bob/x"]}"#,
      message: "manifest needs.write[0] '~bob/x' is not an absolute path"),
    Case(
      id: "path-not-string", needs: #"{"write": [7]}"#,
      message: "manifest needs.write[0] must be an absolute path or a setting reference, got 7"),
    Case(
      id: "missing-setting", needs: #"{"connect": [{"environment": "X"}]}"#,
      message: "manifest has no needs.connect[0].setting"),
    Case(
      id: "setting-not-string", needs: #"{"connect": [443, {"setting": 3}]}"#,
      message: "manifest needs.connect[1].setting must be a non-empty string, got 3"),
    Case(
      id: "empty-setting", needs: #"{"read": [{"setting": ""}]}"#,
      message: #"manifest needs.read[0].setting must be a non-empty string, got """#),
    Case(
      id: "environment-not-string", needs: #"{"read": [{"setting": "s", "environment": true}]}"#,
      message: "manifest needs.read[0].environment must be a non-empty string, got true"),
    Case(
      id: "default-not-string", needs: #"{"connect": [{"setting": "s", "default": 443}]}"#,
      message: "manifest needs.connect[0].default must be a non-empty string, got 443"),
    Case(
      id: "unknown-reference-key", needs: #"{"connect": [{"setting": "s", "env": "X"}]}"#,
      message:
        "manifest needs.connect[0] has the unknown key 'env'; a setting reference takes setting, environment and default"
    ),
  ]

  @Test("a bad needs is refused naming the field", arguments: cases)
  func badNeeds(_ bad: Case) {
    let error = #expect(throws: ManifestError.self) { try Manifest(json: Self.manifest(needs: bad.needs)) }
    #expect(error?.message.hasPrefix(bad.message) == true, "\(error?.message ?? "no error")")
  }

  @Test func anAuthorsNeedsReadBackEqualFromTheirJSON() throws {
    // given a manifest with every form of target
    let written = Manifest(
      id: "a", name: "A", version: "1", description: "", actions: [],
      needs: Needs(
        connect: [.port(80), .setting(name: "endpoint", environment: "E", default: "https://x")],
        read: [.path("/usr/share"), .setting(name: "endpoint")],
        write: [.path("~/out"), .setting(name: "folder", default: "/tmp/f")]))
    // when its JSON is read as the host reads it
    let read = try Manifest(json: written.json.serialized())
    // then nothing is lost
    #expect(read == written)
  }

  @Test func noNeedsAreLeftOutOfTheJSON() {
    let manifest = Manifest(id: "a", name: "A", version: "1", description: "", actions: [])
    #expect(manifest.json["needs"] == nil)
    let partly = Manifest(
      id: "a", name: "A", version: "1", description: "", actions: [], needs: Needs(connect: [.port(443)]))
    #expect(partly.json["needs"] == ["connect": [443]])
  }

  @Test func theSummaryNamesEachKindAndWhatASettingsDefaultComesTo() {
    #expect(Needs.none.summary == "none")
    let needs = Needs(
      connect: [.port(8080), .setting(name: "endpoint", environment: "E", default: "https://api.example.com/v1")],
      read: [.path("/usr/share/dict"), .setting(name: "endpoint", default: "https://api.example.com/v1")],
      write: [.setting(name: "folder", default: "file:///tmp/out")])
    #expect(
      needs.summary
        == "connect 8080, endpoint's port (default 443); read /usr/share/dict, endpoint's path; "
        + "write folder's path (default /tmp/out)")
  }
}
