import Testing

@testable import Flowchart

/// A declaration holds its state's code box; the compiled chart points each node at it and
/// keeps it alive through the declarations, and the invariant checker rejects a box of the
/// wrong type.
struct CodeBoxTests {
  struct Counter: Sendable {
    var count = 0
  }

  static func state(_ declaration: Declaration<Counter>) -> StateDeclaration? {
    guard case .state(let state) = declaration.node else { return nil }
    return state
  }

  @Test func anActionHoldsItsBox() throws {
    let action = Action<Counter>("Count") { $0.count += 1 }
    let state = try #require(Self.state(action.declaration))
    #expect(state.codeKind == .action)
    #expect(state.codeBox is ActionBox<Counter>)
  }

  @Test func anAsyncConditionHoldsItsBox() throws {
    let condition = Condition<Counter>("Positive?", isFinal: true) { context async in
      context.count > 0
    }
    let state = try #require(Self.state(condition.declaration))
    #expect(state.codeKind == .asyncCondition)
    #expect(state.codeBox is AsyncConditionBox<Counter>)
  }

  @Test func aMultipleConditionAndADispatchHoldNoBoxButSayWhichLoopRunsThem() throws {
    let choice = MultipleCondition<Counter, Int>("Which?", isFinal: true) { $0.count }
    let asyncChoice = MultipleCondition<Counter, Int>("Which?", isFinal: true) { context async in
      context.count
    }
    let dispatch = Dispatch<Counter>("Both", isFinal: true) {
      Branch { Action("Left", isFinal: true) }
    }
    let expected: [(Declaration<Counter>, CodeKind)] = [
      (choice.declaration, .select), (asyncChoice.declaration, .asyncSelect),
      (dispatch.declaration, .dispatch),
    ]
    for (declaration, kind) in expected {
      let state = try #require(Self.state(declaration))
      #expect(state.codeKind == kind)
      #expect(state.codeBox == nil)
    }
  }

  @Test func eachDeclarationSaysWhatKindOfStateItIs() throws {
    let declarations: [(Declaration<Counter>, StateKind)] = [
      (Action("A").declaration, .action),
      (Condition("C") { _ in true }.declaration, .condition),
      (
        MultipleCondition<Counter, Int>("M", isFinal: true) { $0.count }.declaration,
        .multipleCondition
      ),
      (Dispatch("D") { Branch { Action("B", isFinal: true) } }.declaration, .dispatch),
    ]
    for (declaration, kind) in declarations {
      #expect(try #require(Self.state(declaration)).kind == kind)
    }
  }

  @Test func eachNodeCallsTheBoxItsDeclarationHolds() throws {
    let declarations: [Declaration<Counter>] = [
      Action("Count") { $0.count += 1 }.declaration,
      Action("Done", isFinal: true) { $0.count += 10 }.declaration,
    ]
    let chart = try Flowchart<Counter> { declarations }
    for (index, declaration) in declarations.enumerated() {
      let box = try #require(Self.state(declaration)?.codeBox)
      let node = chart.graph.nodeBase[index]
      #expect(node.kind == .action)
      #expect(node.code == UnsafeRawPointer(Unmanaged.passUnretained(box).toOpaque()))
    }
  }

  @Test func aChartKeepsItsBoxesAfterItsDeclarationsAreDropped() async throws {
    var declarations: [Declaration<Counter>]? = [
      Action("Count") { $0.count += 1 }.declaration,
      Action("Count again") { context async in context.count += 2 }.declaration,
      Condition("Enough?", isFinal: true) { $0.count == 3 }.declaration,
    ]
    let chart = try Flowchart<Counter> { declarations ?? [] }
    declarations = nil
    #expect(declarations == nil)
    let result = try await chart.run(with: Counter())
    #expect(result.context.count == 3)
    #expect(result.finalStateName == "Enough?")
  }

  #if DEBUG
    @Test func theInvariantCheckerRejectsABoxOfTheWrongContext() async {
      await #expect(processExitsWith: .failure) {
        var compiler = Compiler(entryPoints: [], location: SourceLocation(fileID: "A", line: 1))
        let declarations = [Action<Int>("Count", isFinal: true) { $0 += 1 }.declaration.node]
        let chart = try compiler.compile(declarations)
        // The same compiled chart, taken as a chart over another context: its action's box
        // is an `ActionBox<Int>`, not the `ActionBox<String>` the run loop would call.
        _ = Graph<String>(chart)
      }
    }
  #endif
}
