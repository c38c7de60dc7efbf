import FeatureJSON
import FeatureManifest
import Testing

/// `Needs.grants(config:environment:)`: what a manifest's needs come to for one instance.
@Suite("Need grants")
struct NeedGrantsTests {
  static let endpoint = Needs.Target.setting(name: "endpoint", environment: "ENDPOINT", default: "https://a.example/x")

  @Test func fixedTargetsAreGrantedSortedAndUnique() {
    // given fixed ports and paths, some twice, a write path also read, a trailing slash
    let needs = Needs(
      connect: [.port(8080), .port(443), .port(8080)],
      read: [.path("/usr/share/dict/"), .path("/etc/hosts"), .path("/var/data")],
      write: [.path("/var/data"), .path("/tmp//out/.")])
    // when they are resolved
    let grants = needs.grants(config: [:], environment: [:])
    // then each is granted once, sorted, a written path not repeated as read
    #expect(
      grants
        == NeedGrants(
          readPaths: ["/etc/hosts", "/usr/share/dict"], writePaths: ["/tmp/out", "/var/data"],
          connectPorts: [443, 8080]
        ))
    #expect(Needs.none.grants(config: [:], environment: [:]).isEmpty)
  }

  @Test func aSettingIsReadFromTheConfigThenTheEnvironmentThenItsDefault() {
    let needs = Needs(connect: [Self.endpoint])
    let environment = ["ENDPOINT": "http://b.example/x"]
    // the config wins
    #expect(
      needs.grants(config: ["endpoint": "https://c.example:8443/x"], environment: environment).connectPorts == [8443])
    // else the environment
    #expect(needs.grants(config: [:], environment: environment).connectPorts == [80])
    // else the default
    #expect(needs.grants(config: [:], environment: [:]).connectPorts == [443])
  }

  @Test func aSettingNotSetAnywhereGrantsNothingAndSaysSo() {
    let needs = Needs(connect: [.setting(name: "endpoint", environment: "ENDPOINT")], write: [.setting(name: "folder")])
    let grants = needs.grants(config: ["other": 1], environment: ["HOME": "/home/me"])
    #expect(grants.isEmpty)
    #expect(
      grants.unresolved == [
        "connect endpoint: not set (not in the config or $ENDPOINT, and no default)",
        "write folder: not set (not in the config, and no default)",
      ])
  }

  struct Connect: CustomTestStringConvertible, Sendable {
    let id: String
    let value: JSONValue
    let port: UInt16?
    let reason: String?
    var testDescription: String { id }
  }

  static let connectCases: [Connect] = [
    Connect(id: "http", value: "http://example.com/path", port: 80, reason: nil),
    Connect(id: "https", value: "https://example.com", port: 443, reason: nil),
    Connect(id: "upper-scheme", value: "HTTPS://example.com", port: 443, reason: nil),
    Connect(id: "explicit-port", value: "http://example.com:8080/x?y=1", port: 8080, reason: nil),
    Connect(id: "user-and-port", value: "https://u:p@example.com:9443", port: 9443, reason: nil),
    Connect(id: "ipv6-port", value: "http://[::1]:8000/", port: 8000, reason: nil),
    Connect(id: "ipv6", value: "https://[::1]/", port: 443, reason: nil),
    Connect(id: "empty-port", value: "http://example.com:/", port: 80, reason: nil),
    Connect(id: "bare-port", value: "5432", port: 5432, reason: nil),
    Connect(id: "integer-config", value: 6379, port: 6379, reason: nil),
    Connect(
      id: "ftp", value: "ftp://x", port: nil, reason: "connect endpoint: 'ftp://x' is not an http or https URL"),
    Connect(
      id: "file", value: "file:///tmp/cats.json", port: nil,
      reason: "connect endpoint: 'file:///tmp/cats.json' is not an http or https URL"),
    Connect(id: "no-slashes", value: "http:example.com", port: nil, reason: "is not an http or https URL"),
    Connect(id: "not-a-url", value: "example.com", port: nil, reason: "is not an http or https URL"),
    Connect(id: "no-host", value: "https://", port: nil, reason: "connect endpoint: 'https://' names no host"),
    Connect(id: "port-zero", value: "http://x:0", port: nil, reason: "'http://x:0' is not a port (1...65535)"),
    Connect(id: "port-too-big", value: "http://x:70000", port: nil, reason: "is not a port (1...65535)"),
    Connect(id: "port-letters", value: "http://x:ab", port: nil, reason: "'http://x:ab' has a bad port"),
    Connect(id: "bare-port-zero", value: "0", port: nil, reason: "connect endpoint: '0' is not a port (1...65535)"),
    Connect(id: "boolean-config", value: true, port: nil, reason: "connect endpoint: config value true is not a URL"),
  ]

  @Test("a connect setting's value comes to its port, or to nothing with the reason", arguments: connectCases)
  func connectValue(_ given: Connect) {
    let grants = Needs(connect: [Self.endpoint]).grants(config: ["endpoint": given.value], environment: [:])
    #expect(grants.connectPorts == (given.port.map { [$0] } ?? []))
    if let reason = given.reason {
      #expect(grants.unresolved.count == 1)
      #expect(grants.unresolved.first?.contains(reason) == true, "\(grants.unresolved)")
    } else {
      #expect(grants.unresolved == [])
    }
  }

  struct Path: CustomTestStringConvertible, Sendable {
    let id: String
    let value: JSONValue
    let path: String?
    let reason: String?
    var testDescription: String { id }
  }

  static let pathCases: [Path] = [
    Path(id: "absolute", value: "/srv/cats.json", path: "/srv/cats.json", reason: nil),
    Path(id: "home", value: "~/cats", path: "/home/me/cats", reason: nil),
    Path(id: "file-url", value: "file:///tmp/cats.json", path: "/tmp/cats.json", reason: nil),
    Path(id: "file-localhost", value: "file://localhost/tmp/c.json", path: "/tmp/c.json", reason: nil),
    Path(id: "file-short", value: "file:/tmp/c.json", path: "/tmp/c.json", reason: nil),
    Path(id: "file-escaped", value: "file:///tmp/my%20cats.json?x#y", path: "/tmp/my cats.json", reason: nil),
    Path(
      id: "https", value: "https://a.example/x", path: nil,
      reason: "read endpoint: 'https://a.example/x' is not a path or a file: URL"),
    Path(
      id: "relative", value: "cats.json", path: nil,
      reason: "read endpoint: 'cats.json' is not an absolute path or a file: URL"),
    Path(
      id: "file-host", value: "file://Plugins/x.json", path: nil,
      reason: "names the host 'Plugins'; a file URL here is file:///PATH"),
    Path(id: "file-relative", value: "file:x.json", path: nil, reason: "is not a file URL of an absolute path"),
    Path(id: "file-bad-escape", value: "file:///tmp/%zz", path: nil, reason: "is not a file URL of an absolute path"),
    Path(id: "number-config", value: 3, path: nil, reason: "read endpoint: config value 3 is not a path"),
  ]

  @Test("a read setting's value comes to its path, or to nothing with the reason", arguments: pathCases)
  func readValue(_ given: Path) {
    let grants = Needs(read: [Self.endpoint]).grants(
      config: ["endpoint": given.value], environment: ["HOME": "/home/me"])
    #expect(grants.readPaths == (given.path.map { [$0] } ?? []))
    if let reason = given.reason {
      #expect(grants.unresolved.count == 1)
      #expect(grants.unresolved.first?.contains(reason) == true, "\(grants.unresolved)")
    } else {
      #expect(grants.unresolved == [])
    }
  }

  @Test func homePathsUseTheGivenHOME() {
    let needs = Needs(read: [.path("~/notes")], write: [.setting(name: "folder", environment: "OUT")])
    // when HOME is given, both the fixed path and a setting's value start from it
    let grants = needs.grants(config: [:], environment: ["HOME": "/home/me/", "OUT": "~/"])
    #expect(grants.readPaths == ["/home/me/notes"])
    #expect(grants.writePaths == ["/home/me"])
    // when it is not, they grant nothing and say why
    let homeless = needs.grants(config: [:], environment: ["OUT": "~/out"])
    #expect(homeless.isEmpty)
    #expect(
      homeless.unresolved == [
        "read ~/notes: '~/notes' is in the home folder, and HOME is not set",
        "write folder: '~/out' is in the home folder, and HOME is not set",
      ])
  }
}
