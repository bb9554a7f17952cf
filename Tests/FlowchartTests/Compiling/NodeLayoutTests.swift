import Testing

@testable import Flowchart

/// The run loops read nodes from one buffer; their size is part of the loops' speed.
struct NodeLayoutTests {
  @Test func aNodeIsThreeWords() {
    // kind, isFinal and waitsForInput share the first word with next; alternative and
    // the code pointer take the other two.
    #expect(MemoryLayout<Node>.size == 24)
    #expect(MemoryLayout<Node>.stride == 24)
  }

  @Test func aDecisionIsOneWord() {
    // A subflow's inner run ends with one at each visit: copying it must be cheap.
    #expect(MemoryLayout<Decision>.size == MemoryLayout<Int>.size)
  }
}
