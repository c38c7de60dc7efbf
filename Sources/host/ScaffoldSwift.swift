/// The files of a Swift plugin made by `host new`, as string literals so the host binary needs
/// no resource files.
enum ScaffoldSwift {
  static func package(_ s: Scaffold) -> String {
    #"""
    // swift-tools-version: 6.0
    import PackageDescription

    // The feature plugin '\#(s.name)': a dynamic library the FeatureHost host loads at run time.
    // FeatureKit (the SDK) and FeatureTesting (the test harness) come from a FeatureHost checkout:
    // the one $FEATUREHOST names when it is set, else the one at this path (relative to this
    // folder). Nothing is fetched.
    let featureHost = Context.environment["FEATUREHOST"] ?? "\#(s.recordedFeatureHost)"

    let package = Package(
      name: "\#(s.typeName)",
      products: [.library(name: "\#(s.typeName)", type: .dynamic, targets: ["\#(s.typeName)Feature"])],
      dependencies: [.package(name: "FeatureHost", path: featureHost)],
      targets: [
        // The feature: one module, whose library product is the plugin. FeatureKit's ActionDecoding
        // build plugin derives its catalogue, action decoder, defaults and entry point at build time.
        .target(name: "\#(s.typeName)Feature", dependencies: [.product(name: "FeatureKit", package: "FeatureHost")],
          plugins: [.plugin(name: "ActionDecoding", package: "FeatureHost")]),
        // Drives the built lib\#(s.typeName).so through the ABI, as the host does.
        .testTarget(
          name: "\#(s.typeName)Tests",
          dependencies: [.product(name: "FeatureTesting", package: "FeatureHost")]
        ),
      ]
    )

    """#
  }

  static func feature(_ s: Scaffold) -> String {
    #"""
    import FeatureKit

    /// \#(s.typeName): a running total you add to and reset. Made by `host new \#(s.name)`; make it
    /// yours: change the state, the actions and the reducer, then the test and the transcript.
    ///
    /// The reducer is pure: no I/O, no clock. Work with side effects goes in an `Effect` it
    /// returns (`.run { send in ... }`), which reports back only by sending actions.
    public struct \#(s.typeName)Feature: Feature {
      /// The whole model; a fresh instance starts at `State()`.
      public struct State: Codable, Equatable, Sendable {
        public var total = 0
      }

      /// What happened. A case with a `///` comment is an action a person types (`add amount=3`),
      /// its comment the help `:help` shows; a case without one (an effect's result) is not typed.
      public enum Action: Codable, Sendable, Equatable {
        /// Add an amount to the total.
        /// - Parameter amount: how much to add (may be negative)
        case add(amount: Int)
        /// Set the total back to zero.
        case reset
      }

      public static let manifest = Manifest(
        id: "\#(s.name)", name: "\#(s.typeName)", version: "0.1.0",
        description: "A running total: add amounts to it, reset it.")

      public func reduce(into state: inout State, action: Action) throws -> Effect<Action> {
        switch action {
        case .add(let amount):
          let (sum, overflow) = state.total.addingReportingOverflow(amount)
          // A refused action leaves the state as it was; the message reaches the person.
          guard !overflow else { throw FeatureError("adding \(amount) to \(state.total) would overflow") }
          state.total = sum
        case .reset:
          state.total = 0
        }
        return .none
      }

      /// The view: plain lines of text.
      public func render(_ state: State) -> [String] { ["\#(s.typeName)", "  total: \(state.total)"] }
    }

    """#
  }

  static func tests(_ s: Scaffold) -> String {
    #"""
    import FeatureTesting
    import Testing

    /// Drives the built lib\#(s.typeName).so through the C ABI, as the host does. Exhaustive: every
    /// state change must be asserted, and `finish` fails on anything left over.
    @Suite("\#(s.name) plugin")
    struct \#(s.typeName)Tests {
      @Test func addingMovesTheTotalAndResetClearsIt() async throws {
        let store = try await FeatureTestStore(plugin: "\#(s.typeName)")
        await store.send("add amount=3", assert: ["total": 3])
        await store.send("add amount=-1", assert: ["total": 2])
        await store.send("reset", assert: ["total": 0])
        await store.finish()
      }

      @Test func anAdditionThatWouldOverflowIsRefusedAndTheTotalKept() async throws {
        let store = try await FeatureTestStore(plugin: "\#(s.typeName)", restoring: ["total": 9_223_372_036_854_775_807])
        await store.send("add amount=1", rejectedWith: "would overflow")
        await store.finish()
      }
    }

    """#
  }

  static func transcript(_ s: Scaffold) -> String {
    s.transcript(checkedBy: "\(s.recordedFeatureHost)/host --plugins .build/debug check \(s.name).transcript")
  }

  static func readme(_ s: Scaffold) -> String {
    s.readme(
      madeBy: "in Swift, made by `host new \(s.name)`",
      body: #"""
        - `Sources/\#(s.typeName)Feature/`: the feature, one file: state, actions, reducer, view. Its
          library product (lib\#(s.typeName).so) is the plugin; the build derives its action catalogue
          (from the `///` comments on the `Action` cases), decoder and entry point.
        - `Tests/\#(s.typeName)Tests/`: drives the built plugin with FeatureTesting's `FeatureTestStore`.
        - `\#(s.name).transcript`: a session typed to `host run`, checked by `host check`.


        """#)
  }
}
