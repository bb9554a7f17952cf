import Flowchart
import Testing

/// Declarations free themselves without recursing once per level of nesting, so a deeply
/// nested chart can be released on any thread, whatever its stack size.
///
/// A release that recurses overflows the stack and crashes the test process: that is how
/// these tests fail, at the line that drops the last reference.
struct DeclarationLifetimeTests {
  struct Level: Sendable {}

  /// Deeper than an 8 MiB stack allows when each level's release calls the next one's: the
  /// release crashed at about 40,000 levels in release builds, and 15,000 in debug builds,
  /// before it was made iterative.
  static let depth = 50_000

  @FlowBuilder<Level>
  static func nested(in inner: [Declaration<Level>], level: Int) -> [Declaration<Level>] {
    Condition("Level \(level)") { _ in
      level.isMultiple(of: 2)
    } yes: {
      inner
    } no: {
      Action("Stop \(level)", isFinal: true)
    }
  }

  static func deepDeclaration() -> [Declaration<Level>] {
    var block = finalAction("Bottom")
    for level in 0..<depth {
      block = nested(in: block, level: level)
    }
    return block
  }

  @Test func releasingADeeplyNestedDeclarationDoesNotRecurse() {
    var block = Self.deepDeclaration()
    #expect(block.count == 1)
    block = []
  }

  @Test func releasingADeeplyNestedDispatchDoesNotRecurse() {
    var block: [Declaration<Level>] = Self.finalAction("Bottom")
    for level in 0..<Self.depth {
      let inner = block
      block = Self.dispatch(level: level, inner: inner)
    }
    #expect(block.count == 1)
    block = []
  }

  @Test func releasingADeeplyNestedCompiledChartDoesNotRecurse() throws {
    var chart: Flowchart<Level>? = try Flowchart<Level> { Self.deepDeclaration() }
    #expect(chart?.states.count == 2 * Self.depth + 1)
    chart = nil
  }

  @Test func aDeclarationSharedByTwoChartsOutlivesTheFirst() throws {
    let shared = Self.nested(in: Self.finalAction("Inner"), level: 0)
    let second = try Flowchart<Level> { shared }
    do {
      // Released at the end of this scope, with the declarations it shares.
      let first = try Flowchart<Level> { shared }
      #expect(first.states.count == second.states.count)
    }
    #expect(try second.runSynchronously(with: Level()).finalStateName == "Inner")
  }

  @FlowBuilder<Level>
  static func finalAction(_ name: String) -> [Declaration<Level>] {
    Action(name, isFinal: true)
  }

  @FlowBuilder<Level>
  static func dispatch(level: Int, inner: [Declaration<Level>]) -> [Declaration<Level>] {
    Dispatch("Dispatch \(level)", isFinal: true) {
      Branch { inner }
    }
  }
}
