import Testing

@testable import HostKit

@Suite("Callback binding")
struct CallbackBindingTests {
  /// A binding makes one closure per callback: emit, log, effect_began, effect_ended, emit_step,
  /// schedule, cancel, get_extension.
  static let closures = 8

  @Test("a bind that fails frees each closure made before it exactly once", arguments: 1...closures)
  func aFailedBindFreesEachClosureOnce(failingAt: Int) {
    // given a binding whose closure number `failingAt` cannot be made
    let ledger = ClosureLedger(failingAt: failingAt)
    let target = SilentTarget()
    // when it is built
    #expect(throws: HostError.self) {
      _ = try CallbackBinding(target: target, hostVersion: HostVersion.cString, ledger: ledger)
    }
    // then the ones made before it were freed, once each
    #expect(ledger.allocated.load(ordering: .relaxed) == failingAt - 1)
    #expect(ledger.freed.load(ordering: .relaxed) == failingAt - 1)
  }

  @Test func aWholeBindingFreesItsClosuresOnceWhenReleased() throws {
    // given a binding that was built whole
    let ledger = ClosureLedger(failingAt: nil)
    let target = SilentTarget()
    var binding: CallbackBinding? = try CallbackBinding(
      target: target, hostVersion: HostVersion.cString, ledger: ledger)
    #expect(binding?.host.pointee.emit != nil)
    #expect(ledger.allocated.load(ordering: .relaxed) == Self.closures)
    #expect(ledger.freed.load(ordering: .relaxed) == 0)
    // when it is released, then every closure is freed, once
    binding = nil
    #expect(ledger.freed.load(ordering: .relaxed) == Self.closures)
  }

  @Test func aDestroyedInstancesCallbacksStayCallableUntilLaterOnesAreRetired() throws {
    // given a binding retired by its destroyed instance
    let ledger = ClosureLedger(failingAt: nil)
    let target = SilentTarget()
    CallbackBinding.retire(try CallbackBinding(target: target, hostVersion: HostVersion.cString, ledger: ledger))
    // then a plugin that calls it late still reaches it: nothing is freed yet
    #expect(ledger.freed.load(ordering: .relaxed) == 0)
    // when as many more are retired as the quarantine holds
    for _ in 0..<CallbackBinding.quarantined {
      CallbackBinding.retire(try CallbackBinding(target: target, hostVersion: HostVersion.cString))
    }
    // then it is freed, once
    #expect(ledger.freed.load(ordering: .relaxed) == Self.closures)
  }
}
