import Testing

@testable import Flowchart

/// A synchronous subflow on the `.whole` context runs its chart in place, inside the outer
/// run's synchronous loop (see `CallSite`), rather than as a nested run. These tests pin
/// which subflows do, and that in place or nested, a run ends the same way: the same
/// result, or the same error, word for word.
struct SubflowInPlaceTests {
  struct Planned: Error, CustomStringConvertible {
    var description: String { "the planned failure" }
  }

  // MARK: - Which subflows run in place

  @Test func aWholeSynchronousSubflowUsedAsAnActionOrAConditionRunsInPlace() throws {
    let inner = try Flowchart<Int> { Condition("Even?", isFinal: true) { $0 % 2 == 0 } }
    let outer = try Flowchart<Int> {
      Subflow("As an action", running: inner, context: .whole)
      Subflow("As a condition", running: inner, context: .whole) {
        Action("Even", isFinal: true)
      } no: {
        Action("Odd", isFinal: true)
      }
    }
    #expect(kind(of: "As an action", in: outer) == .callAction)
    #expect(kind(of: "As a condition", in: outer) == .callCondition)
    #expect(outer.graph.callSites.count == 2)
  }

  @Test func otherSubflowsRunNested() throws {
    let plain = try Flowchart<Int> { Action("Add", isFinal: true) { $0 += 1 } }
    let asynchronous = try Flowchart<Int> {
      Action("Add", isFinal: true) { (value: inout Int) async in value += 1 }
    }
    let dispatching = try Flowchart<Int> {
      Dispatch("Both", isFinal: true) {
        Branch { Action("Left", isFinal: true) }
        Branch { Action("Right", isFinal: true) }
      }
    }
    let modified = try Flowchart<Int> {
      Action("Add", isFinal: true) { $0 += 1 }.retry(2)
    }
    let outer = try Flowchart<Int> {
      Subflow(
        "Closures", running: plain, context: ContextMapping(enter: { $0 }, leave: { $0 = $1 }))
      Subflow("Asynchronous", running: asynchronous, context: .whole)
      Subflow("Dispatching", running: dispatching, context: .whole)
      Subflow("Modified inside", running: modified, context: .whole)
      Subflow("Modified", running: plain, context: .whole).retry(1)
      Subflow("Keyed", running: plain, context: .whole) {
        Case("Add") { Action("End", isFinal: true) }
      }
    }
    #expect(kind(of: "Closures", in: outer) == .action)
    #expect(kind(of: "Asynchronous", in: outer) == .asyncAction)
    #expect(kind(of: "Dispatching", in: outer) == .action)
    #expect(kind(of: "Modified inside", in: outer) == .action)
    #expect(kind(of: "Modified", in: outer) == .modified)
    #expect(kind(of: "Keyed", in: outer) == .select)
    #expect(outer.graph.callSites.isEmpty)
    let mapped = try Flowchart<Pair> {
      Subflow("Key path", isFinal: true, running: plain, context: .keyPath(\.first))
    }
    #expect(kind(of: "Key path", in: mapped) == .action)
    // Nested or not, they run.
    #expect(try mapped.runSynchronously(with: Pair()).context.first == 1)
  }

  // MARK: - In place, a run ends as nested

  /// Random synchronous charts, each used as a subflow in place and nested, inside an outer
  /// chart that visits it again and again: both ways end the same way, in the synchronous
  /// and the asynchronous loop, and the path of a run that succeeds never lists the states
  /// of the subflow's chart.
  @Test func randomChartsEndTheSameWayInPlaceAndNested() async throws {
    var generator = SeededGenerator(seed: 0x5EED_5_0B_F10)
    var counts = (succeeded: 0, failed: 0, kinds: Set<String>())
    for round in 0..<400 {
      let plan = InnerPlan.random(using: &generator)
      let inner = try plan.chart()
      let start = Walker(value: generator.next())
      let limit: Int? =
        Bool.random(using: &generator) ? nil : Int.random(in: 0...12, using: &generator)
      let asCondition = Bool.random(using: &generator)
      let inPlace = try Self.outer(inner, context: .whole, asCondition: asCondition, limit: limit)
      let nested = try Self.outer(
        inner, context: ContextMapping(enter: { $0 }, leave: { $0 = $1 }),
        asCondition: asCondition, limit: limit)
      #expect(kind(of: "Sub", in: inPlace) == (asCondition ? .callCondition : .callAction))
      let synchronous = (
        inPlace: Self.ending(of: { try inPlace.runSynchronously(with: start, stepLimit: 200) }),
        nested: Self.ending(of: { try nested.runSynchronously(with: start, stepLimit: 200) })
      )
      let asynchronous = await Self.ending(of: {
        try await inPlace.run(with: start, stepLimit: 200)
      })
      #expect(synchronous.inPlace == synchronous.nested, "round \(round): \(plan)")
      #expect(asynchronous == synchronous.nested, "round \(round): \(plan)")
      switch synchronous.inPlace {
      case .succeeded(let names, _, _, _):
        counts.succeeded += 1
        #expect(names.allSatisfy { !$0.hasPrefix("I") }, "round \(round)")
      case .failed(let kind, _, _, _, _):
        counts.failed += 1
        counts.kinds.insert(kind)
      }
    }
    // The charts take every way there is to end: the comparison above means something.
    #expect(counts.succeeded > 50 && counts.failed > 50)
    #expect(
      counts.kinds.isSuperset(of: [
        "\(RunError.Kind.thrown)", "\(RunError.Kind.stepLimitExceeded)",
        "\(RunError.Kind.unmatchedKey)",
      ]))
  }

  // MARK: - Each way to end, in place

  @Test func aFailureInPlaceNamesTheWayThroughBothCharts() throws {
    let confirmLine = #line + 3
    let inner = try Flowchart<Int> {
      Action("Charge") { $0 += 1 }
      Action("Confirm", isFinal: true) { _ in throw Planned() }
    }
    let payLine = #line + 3
    let outer = try Flowchart<Int> {
      Action("Basket")
      Subflow("Pay", isFinal: true, running: inner, context: .whole)
    }
    #expect(kind(of: "Pay", in: outer) == .callAction)
    let error = try #require(throws: RunError.self) { try outer.runSynchronously(with: 0) }
    #expect(error.kind == .thrown)
    #expect(error.stateName == "Pay")
    #expect(error.pathNames == ["Basket", "Pay"])
    let innerError = try #require(error.underlyingError as? RunError)
    #expect(innerError.stateName == "Confirm")
    #expect(innerError.pathNames == ["Charge", "Confirm"])
    #expect(innerError.underlyingError is Planned)
    expectText(
      error.description,
      """
      The run stopped at subflow 'Pay' (FlowchartTests/SubflowInPlaceTests.swift:\(payLine)), \
      whose chart failed: The run stopped at action 'Confirm' \
      (FlowchartTests/SubflowInPlaceTests.swift:\(confirmLine)): it threw the planned \
      failure. (Path in the subflow: Charge → Confirm.)
      Path: Basket → Pay
      """)
  }

  @Test(arguments: [0, 1, 2])
  func theSubflowsStepLimitBoundsEachVisit(limit: Int) throws {
    let inner = try Flowchart<Int> {
      Action("One") { $0 += 1 }
      Action("Two") { $0 += 1 }
      Action("Three", isFinal: true) { $0 += 1 }
    }
    let outer = try Flowchart<Int> {
      Subflow("Sub", isFinal: true, running: inner, context: .whole, stepLimit: limit)
    }
    let error = try #require(throws: RunError.self) { try outer.runSynchronously(with: 0) }
    #expect(error.kind == .stepLimitExceeded)
    #expect(error.stateName == "Sub")
    let innerError = try #require(error.underlyingError as? RunError)
    #expect(innerError.stateName == ["One", "Two", "Three"][limit])
    #expect(innerError.pathNames == Array(["One", "Two"].prefix(limit)))
    // Three states are enough, and the outer run counts the subflow as one step.
    let enough = try Flowchart<Int> {
      Subflow("Sub", isFinal: true, running: inner, context: .whole, stepLimit: 3)
    }
    #expect(try enough.runSynchronously(with: 0, stepLimit: 1).context == 3)
  }

  /// A visit in place asks the task whether it was cancelled where a nested run does: at
  /// its second state, not before its first.
  @Test func cancellingTheTaskStopsAVisitInPlaceAtItsNextCheckpoint() async throws {
    let inner = try Flowchart<Int> {
      Action("Cancel the task") { value in
        value += 1
        withUnsafeCurrentTask { $0?.cancel() }
      }
      Action("Never", isFinal: true) { $0 += 100 }
    }
    let outer = try Flowchart<Int> {
      Subflow("Sub", running: inner, context: .whole)
      Action("After", isFinal: true)
    }
    #expect(kind(of: "Sub", in: outer) == .callAction)
    let error = try await #require(throws: RunError.self) {
      try await Task { try await outer.run(with: 0) }.value
    }
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Sub")
    let innerError = try #require(error.underlyingError as? RunError)
    #expect(innerError.kind == .cancelled)
    #expect(innerError.stateName == "Never")
    #expect(innerError.pathNames == ["Cancel the task"])
  }

  @Test func aConditionInPlaceFailsWhenItsChartEndsDecidingAKey() throws {
    let inner = try Flowchart<Int> {
      MultipleCondition("Size", isFinal: true) { $0 > 10 ? "l" : "s" }
    }
    let outer = try Flowchart<Int> {
      Subflow("Big?", running: inner, context: .whole) {
        Action("Yes", isFinal: true)
      } no: {
        Action("No", isFinal: true)
      }
    }
    #expect(kind(of: "Big?", in: outer) == .callCondition)
    let error = try #require(throws: RunError.self) { try outer.runSynchronously(with: 20) }
    #expect(error.kind == .thrown)
    #expect(error.stateName == "Big?")
    #expect(error.reason.contains("multiple condition 'Size', which decided key(l) where"))
    // As an action, the same chart just ends.
    let asAction = try Flowchart<Int> {
      Subflow("Size it", isFinal: true, running: inner, context: .whole)
    }
    #expect(try asAction.runSynchronously(with: 20).decision == .done)
  }

  @Test func aSubflowInsideAChartRunInPlaceRunsNestedAndEndsTheSame() async throws {
    let innermost = try Flowchart<Int> {
      Condition("Small?", isFinal: true) { $0 < 5 }
    }
    let middle = try Flowchart<Int> {
      Action("Add") { $0 += 1 }
      Subflow("Check", running: innermost, context: .whole) {
        GoTo("Add")
      } no: {
        Action("Enough", isFinal: true)
      }
    }
    let outer = try Flowchart<Int> {
      Subflow("Count", running: middle, context: .whole)
      Action("Done", isFinal: true)
    }
    #expect(kind(of: "Count", in: outer) == .callAction)
    #expect(kind(of: "Check", in: middle) == .callCondition)
    let result = try outer.runSynchronously(with: 0)
    #expect(result.context == 5)
    #expect(result.pathNames == ["Count", "Done"])
    #expect(try await outer.run(with: 0).context == 5)
  }

  @Test func manyVisitsRecordTheSubflowOncePerVisit() throws {
    let inner = try Flowchart<Int> {
      Action("One") { $0 += 1 }
      Action("Two", isFinal: true) { $0 += 1 }
    }
    let outer = try Flowchart<Int> {
      Subflow("Sub", running: inner, context: .whole)
      Condition("Again?") {
        $0 < 3_000
      } yes: {
        GoTo("Sub")
      } no: {
        Action("Done", isFinal: true)
      }
    }
    let result = try outer.runSynchronously(with: 0)
    #expect(result.context == 3_000)
    #expect(result.stepCount == 3_001)
    #expect(result.pathNames.suffix(3) == ["Sub", "Again?", "Done"])
  }

  /// A live run reports each state it enters: it runs a subflow nested, as one state, and
  /// ends as a run that nobody observes.
  @Test func aLiveRunSeesTheSubflowAsOneState() async throws {
    let inner = try Flowchart<Int> {
      Action("One") { $0 += 1 }
      Action("Two", isFinal: true) { $0 += 1 }
    }
    let outer = try Flowchart<Int> {
      Subflow("Sub", running: inner, context: .whole)
      Action("Done", isFinal: true)
    }
    let handle = outer.start(with: 0, isPaused: true)
    let events = handle.events()
    handle.resume()
    var entered: [String] = []
    for await event in events {
      if case .stateEntered = event.kind { entered.append(event.stateName) }
    }
    let result = try await handle.result
    #expect(entered == ["Sub", "Done"])
    #expect(result.context == 2)
    #expect(result.pathNames == (try outer.runSynchronously(with: 0)).pathNames)
  }

  // MARK: - Helpers

  struct Pair: Sendable {
    var first = 0
    var second = 0
  }

  /// The node kind of the state named `name`.
  func kind<Context>(of name: String, in chart: Flowchart<Context>) -> CodeKind {
    chart.graph.nodeBase[Int(chart.graph.names.states(named: name)[0])].kind
  }

  /// What the random runs compare.
  enum Ending: Equatable {
    case succeeded(path: [String], final: String, decision: Decision, context: Walker)
    case failed(kind: String, state: String, path: [String], description: String, inner: String)
  }

  static func ending(of run: () throws -> RunResult<Walker>) -> Ending {
    ending(Result { try run() })
  }

  static func ending(of run: () async throws -> RunResult<Walker>) async -> Ending {
    do {
      return ending(.success(try await run()))
    } catch {
      return ending(.failure(error))
    }
  }

  static func ending(_ outcome: Result<RunResult<Walker>, any Error>) -> Ending {
    switch outcome {
    case .success(let result):
      .succeeded(
        path: result.pathNames, final: result.finalStateName, decision: result.decision,
        context: result.context)
    case .failure(let error as RunError): failed(error)
    case .failure(let error):
      .failed(kind: "other", state: "", path: [], description: "\(error)", inner: "")
    }
  }

  static func failed(_ error: RunError) -> Ending {
    .failed(
      kind: "\(error.kind)", state: error.stateName, path: error.pathNames,
      description: error.description,
      inner: (error.underlyingError as? RunError)?.description ?? "")
  }

  /// The outer chart of the random runs, declared once for both mappings so that their
  /// errors name the same lines: it visits the subflow until the walker says stop.
  static func outer(
    _ inner: Flowchart<Walker>, context: ContextMapping<Walker, Walker>, asCondition: Bool,
    limit: Int?
  ) throws -> Flowchart<Walker> {
    try Flowchart<Walker> {
      Action("Before") { $0.step(-1) }
      if asCondition {
        Subflow("Sub", running: inner, context: context, stepLimit: limit) {
          Action("Yes") { $0.step(-2) }
        } no: {
          Action("No") { $0.step(-3) }
        }
      } else {
        Subflow("Sub", running: inner, context: context, stepLimit: limit)
      }
      Condition("Again?") {
        $0.value % 4 != 0
      } yes: {
        GoTo("Sub")
      } no: {
        Action("Done", isFinal: true)
      }
    }
  }
}

/// The context of the random runs: each state steps the value and records itself.
struct Walker: Sendable, Equatable {
  var trace: [Int] = []
  var value: UInt64

  mutating func step(_ id: Int) {
    trace.append(id)
    value = value &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
  }
}

/// A random synchronous chart over ``Walker``: states `I0`, `I1`, … read top to bottom,
/// each stepping the walker, some jumping back or ahead, some failing.
struct InnerPlan: Sendable, CustomStringConvertible {
  enum State: Sendable {
    /// Fails when `value >> 61 == 0` (one time in eight) if `risky`.
    case action(risky: Bool)
    /// Yes (`value % 3 == 0`) goes to the state at `target`, or to an inline final action
    /// when `target` is `nil`.
    case condition(target: Int?)
    /// Decides `value % 3`; key 0 jumps to `target`, key 1 falls through, key 2 falls
    /// through to the `Default`, or has no exit at all.
    case multiple(target: Int, hasDefault: Bool)
    /// A subflow of its own (`.whole`), which runs nested.
    case subflow
  }

  /// The last state's kind: an action, a condition or a multiple condition, final.
  enum Last: Sendable { case action, condition, multiple }

  var states: [State]
  var last: Last

  var description: String { "\(states) then \(last)" }

  static func random(using generator: inout SeededGenerator) -> InnerPlan {
    let count = Int.random(in: 0...5, using: &generator)
    var states: [State] = []
    for _ in 0..<count {
      let target = Int.random(in: 0...count, using: &generator)
      switch Int.random(in: 0..<8, using: &generator) {
      case 0..<3: states.append(.action(risky: Bool.random(using: &generator)))
      case 3..<5:
        states.append(.condition(target: Bool.random(using: &generator) ? target : nil))
      case 5..<7:
        states.append(.multiple(target: target, hasDefault: Bool.random(using: &generator)))
      default: states.append(.subflow)
      }
    }
    let last: Last = [.action, .condition, .multiple].randomElement(using: &generator)!
    return InnerPlan(states: states, last: last)
  }

  func chart() throws -> Flowchart<Walker> {
    let tiny = try Flowchart<Walker> {
      Action("T0") { $0.step(100) }
      Condition("T1", isFinal: true) { $0.value % 2 == 0 }
    }
    var declarations: [Declaration<Walker>] = []
    for (index, state) in states.enumerated() {
      let name = "I\(index)"
      switch state {
      case .action(let risky):
        declarations.append(
          Action(name) { walker in
            walker.step(index)
            if risky && walker.value >> 61 == 0 { throw SubflowInPlaceTests.Planned() }
          }.declaration)
      case .condition(let target):
        declarations.append(
          Condition(name) { walker in
            walker.step(index)
            return walker.value % 3 == 0
          } yes: {
            if let target { GoTo("I\(target)") } else { Action("F\(index)", isFinal: true) }
          } no: {
          }.declaration)
      case .multiple(let target, let hasDefault):
        declarations.append(
          MultipleCondition(name) { (walker: inout Walker) -> Int in
            walker.step(index)
            return Int(walker.value % 3)
          } exits: {
            Case(0) { GoTo("I\(target)") }
            Case(1) {}
            if hasDefault { Default {} }
          }.declaration)
      case .subflow:
        declarations.append(Subflow(name, running: tiny, context: .whole).declaration)
      }
    }
    let lastName = "I\(states.count)"
    let lastIndex = states.count
    switch last {
    case .action:
      declarations.append(Action(lastName, isFinal: true) { $0.step(lastIndex) }.declaration)
    case .condition:
      declarations.append(
        Condition(lastName, isFinal: true) { walker in
          walker.step(lastIndex)
          return walker.value % 2 == 0
        }.declaration)
    case .multiple:
      declarations.append(
        MultipleCondition(lastName, isFinal: true) { (walker: inout Walker) -> Int in
          walker.step(lastIndex)
          return Int(walker.value % 3)
        }.declaration)
    }
    return try Flowchart<Walker> {
      for declaration in declarations { Declared(declaration: declaration) }
    }
  }
}

/// A declaration made elsewhere, listed in a block.
struct Declared<Context: Sendable>: FlowComponent {
  let declaration: Declaration<Context>
}
