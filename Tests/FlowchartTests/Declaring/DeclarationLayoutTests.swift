import Testing

@testable import Flowchart

#if os(Linux)
  /// glibc's `malloc_usable_size`: how many bytes the heap block of an object holds.
  @_silgen_name("malloc_usable_size")
  private func usableSize(_ pointer: UnsafeRawPointer) -> Int

  /// Compiling a large chart is bound by the memory its declarations take (see
  /// `StateDeclaration`): a declaration must stay in glibc's 96-byte heap block, with or
  /// without code, and with a subflow's attachment.
  struct DeclarationLayoutTests {
    private static func heapBlock(of declaration: Declaration<Int>) throws -> Int {
      guard case .state(let state) = declaration.node else { throw Missing() }
      return usableSize(Unmanaged.passUnretained(state).toOpaque())
    }

    private struct Missing: Error {}

    /// The smallest heap block of several declarations made the same way: glibc may hand a
    /// request a larger block than it needs when the rest of a free block would be too
    /// small to keep, so one declaration's block says little, the smallest says its size.
    private static func smallestHeapBlock(
      of make: () -> Declaration<Int>
    ) throws -> Int {
      var declarations: [Declaration<Int>] = []
      for _ in 0..<32 { declarations.append(make()) }
      return try declarations.map(heapBlock(of:)).min() ?? .max
    }

    @Test func aDeclarationFitsTheNinetySixByteBlock() throws {
      let inner = try Flowchart<Int> { Action("Inner", isFinal: true) }
      let makers: [() -> Declaration<Int>] = [
        { Action("Work") { $0 += 1 }.declaration },
        { Action("Point", isFinal: true).declaration },
        {
          Condition("Positive?") {
            $0 > 0
          } yes: {
          }.declaration
        },
        { Subflow("Inner", running: inner, context: .whole).declaration },
      ]
      for make in makers {
        #expect(try Self.smallestHeapBlock(of: make) <= 88)
      }
    }

    @Test func anAttachmentKeepsTheBoxAndTheFinality() throws {
      let inner = try Flowchart<Int> { Action("Inner", isFinal: true) }
      let subflow = Subflow<Int>("Inner", isFinal: true, running: inner, context: .whole)
      guard case .state(let state) = subflow.declaration.node else { throw Missing() }
      #expect(state.isFinal)
      #expect(state.codeBox is ActionBox<Int>)
      #expect(state.attachment != nil)
      guard case .state(let plain) = Action<Int>("Plain").declaration.node else {
        throw Missing()
      }
      #expect(!plain.isFinal)
      #expect(plain.codeBox == nil)
      #expect(plain.attachment == nil)
    }
  }
#endif

/// A block of declarations is read by the compiler as the array the builder made, not as a
/// copy of it (see `Declaration.nodes(of:)`): one array per block, and no retain and release
/// of every declaration in it.
struct DeclarationBlockSharingTests {
  private struct Missing: Error {}

  /// The address of the array's first element: the same for two arrays that share storage.
  private static func storage<Element>(of array: [Element]) -> UnsafeRawPointer? {
    array.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
  }

  @Test func aDeclarationIsLaidOutAsItsNode() {
    #expect(MemoryLayout<Declaration<Int>>.size == MemoryLayout<DeclarationNode>.size)
    #expect(MemoryLayout<Declaration<Int>>.stride == MemoryLayout<DeclarationNode>.stride)
    #expect(MemoryLayout<Declaration<Int>>.alignment == MemoryLayout<DeclarationNode>.alignment)
  }

  @Test func aBlockIsReadInPlace() {
    let block: [Declaration<Int>] = [
      Action<Int>("First") { $0 += 1 }.declaration,
      FlowBuilder<Int>.buildFinalResult(FlowBuilder<Int>.buildExpression(GoTo("First")))[0],
      Action<Int>("Last", isFinal: true).declaration,
    ]
    let nodes = Declaration.nodes(of: block)
    #expect(nodes.count == block.count)
    #expect(Self.storage(of: nodes) == Self.storage(of: block))
    for (node, declaration) in zip(nodes, block) {
      switch (node, declaration.node) {
      case (.state(let read), .state(let declared)): #expect(read === declared)
      case (.goTo(let read), .goTo(let declared)): #expect(read === declared)
      case (.state, .goTo), (.goTo, .state): Issue.record("a declaration read as another kind")
      }
    }
  }

  @Test func aBlockWithRoomToSpareIsCopiedToItsSize() {
    var block: [Declaration<Int>] = [Action<Int>("Only", isFinal: true).declaration]
    block.reserveCapacity(1_000)
    let nodes = Declaration.nodes(of: block)
    #expect(nodes.count == 1)
    #expect(nodes.capacity < 100)
    #expect(Self.storage(of: nodes) != Self.storage(of: block))
  }

  @Test func aLoopAndTheStateAfterItMakeOneArray() {
    typealias Builder = FlowBuilder<Int>
    let parts = (0..<1_000).map { Builder.buildExpression(Action<Int>("S\($0)")) }
    let block = Builder.buildFinalResult(
      Builder.buildPartialBlock(
        accumulated: Builder.buildArray(parts),
        next: Builder.buildExpression(Action<Int>("Done", isFinal: true))))
    #expect(block.count == 1_001)
    // Room for the final state was made with the loop's array: it was not copied into one
    // twice as large, which the chart would keep.
    #expect(block.capacity - block.count <= block.count / 8 + 4)
    #expect(Self.storage(of: Declaration.nodes(of: block)) == Self.storage(of: block))
  }

  @Test func aConditionKeepsItsBlocksAsBuilt() throws {
    let yes: [Declaration<Int>] = [Action<Int>("Yes", isFinal: true).declaration]
    let no: [Declaration<Int>] = [
      Action<Int>("No") { $0 -= 1 }.declaration, Action<Int>("End", isFinal: true).declaration,
    ]
    let condition = Condition<Int>("Positive?") {
      $0 > 0
    } yes: {
      yes
    } no: {
      no
    }
    guard case .state(let state) = condition.declaration.node,
      case .yesNo(let keptYes, let keptNo, _) = state.body
    else { throw Missing() }
    #expect(Self.storage(of: keptYes) == Self.storage(of: yes))
    #expect(Self.storage(of: keptNo) == Self.storage(of: no))
    // And the chart made of them is the one declared.
    let chart = try Flowchart<Int> { condition }
    #expect(chart.states.map { chart[$0].name } == ["Positive?", "Yes", "No", "End"])
  }
}
