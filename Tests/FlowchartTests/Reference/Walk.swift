import Flowchart

/// The context of a random chart: a hash of everything that ran, in order, and the trace of
/// the states that ran.
///
/// ``step(_:)``, ``decider`` and ``merge(_:_:failsAt:)`` are the "user code" of every random
/// chart: the chart's closures and the reference interpreter both call them, so that the
/// two sides can only differ in how they walk the chart, which is what the test checks.
struct Walk: Sendable, Equatable, CustomStringConvertible {
  var value: UInt64 = 1
  var trace: [Int] = []
  /// Cancels the task that runs the whole run, from the top level or from inside a
  /// dispatch branch's child task; set by the test for each run, `nil` in the reference.
  var cancelRun: (@Sendable () -> Void)?

  /// What conditions, multiple conditions, failures and cancellations decide on.
  var decider: Int { Int(truncatingIfNeeded: (value >> 33) % 1_000_003) }

  /// Records state `id`: appends it to the trace and mixes it into the value.
  mutating func step(_ id: Int) {
    trace.append(id)
    value = (value ^ UInt64(id)) &* 0x5851_F42D_4C95_7F2D &+ 0x1405_7B7E_F767_814F
  }

  /// Folds a branch's copy back: order-sensitive in the value, and the branch's own part of
  /// the trace appended.
  ///
  /// A branch's trace is the trace at the dispatch, then the branch's own states. The
  /// running context's trace is the same start, then the branches merged so far; their first
  /// own state belongs to another branch, so the common prefix of the two is exactly the
  /// trace at the dispatch.
  ///
  /// - Parameter dispatch: When set, the merge throws ``PlannedFailure`` for that dispatch
  ///   when the branch's `decider % 3 == 0`.
  static func merge(_ context: inout Walk, _ branch: Walk, failsAt dispatch: Int?) throws {
    if let dispatch, branch.decider % 3 == 0 { throw PlannedFailure(state: dispatch) }
    context.value = context.value &* 31 &+ branch.value
    let shared = zip(context.trace, branch.trace).prefix { $0 == $1 }.count
    context.trace += branch.trace[shared...]
  }

  static func == (lhs: Walk, rhs: Walk) -> Bool {
    lhs.value == rhs.value && lhs.trace == rhs.trace
  }

  var description: String { "Walk(value: \(value), trace: \(trace))" }
}

// MARK: - The chart

/// The code of an asynchronous state that decides a `Result`.
typealias AsynchronousCode<Result> = @Sendable (inout Walk) async throws -> Result

extension RandomPlan.Code {
  /// The code of state `id` as the chart runs it: records the state, then cancels and
  /// throws as planned.
  func run(_ id: Int, _ walk: inout Walk) throws {
    if try start(id, &walk) { _ = try RandomPlan.anotherChart.runSynchronously(with: 0) }
    try finish(id, walk)
  }

  /// The same, for an asynchronous state.
  func runAsynchronously(_ id: Int, _ walk: inout Walk) async throws {
    if try start(id, &walk) { _ = try await RandomPlan.anotherChart.run(with: 0) }
    try finish(id, walk)
  }

  /// Records the state, then cancels the run as planned; returns whether the state must
  /// now run another chart.
  private func start(_ id: Int, _ walk: inout Walk) throws -> Bool {
    walk.step(id)
    guard let cancelsEvery, walk.decider % cancelsEvery == 0 else { return false }
    walk.cancelRun?()
    switch afterCancel {
    case .returns: return false
    case .throwsFailure: throw PlannedFailure(state: id)
    case .checksCancellation: try Task.checkCancellation()
    case .runsAnotherChart: return true
    }
    return false
  }

  /// Throws as planned.
  private func finish(_ id: Int, _ walk: Walk) throws {
    guard let failsEvery, walk.decider % failsEvery == 0 else { return }
    switch failure {
    case .planned: throw PlannedFailure(state: id)
    case .cancellationError: throw CancellationError()
    }
  }

  func action(_ id: Int) -> @Sendable (inout Walk) throws -> Void {
    { walk in try run(id, &walk) }
  }

  func asynchronousAction(_ id: Int) -> @Sendable (inout Walk) async throws -> Void {
    { walk in
      await Task.yield()
      try await runAsynchronously(id, &walk)
      await Task.yield()
    }
  }

  func condition(_ id: Int, modulus: Int) -> @Sendable (inout Walk) throws -> Bool {
    { walk in
      try run(id, &walk)
      return walk.decider % modulus == 0
    }
  }

  func asynchronousCondition(_ id: Int, modulus: Int) -> AsynchronousCode<Bool> {
    { walk in
      await Task.yield()
      try await runAsynchronously(id, &walk)
      return walk.decider % modulus == 0
    }
  }

  func key(_ id: Int) -> @Sendable (inout Walk) throws -> Int {
    { walk in
      try run(id, &walk)
      return walk.decider % 4
    }
  }

  func asynchronousKey(_ id: Int) -> @Sendable (inout Walk) async throws -> Int {
    { walk in
      await Task.yield()
      try await runAsynchronously(id, &walk)
      return walk.decider % 4
    }
  }
}

extension RandomPlan {
  /// The chart a state runs when its plan says ``AfterCancel/runsAnotherChart``.
  static let anotherChart = try! Flowchart<Int> {
    Action("Another chart's state", isFinal: true) { $0 += 1 }
  }

  /// The plan as a chart.
  func chart() throws -> Flowchart<Walk> {
    try Flowchart<Walk> { Self.declarations(flow) }
  }

  @FlowBuilder<Walk>
  private static func declarations(_ flow: [Node]) -> [Declaration<Walk>] {
    for node in flow {
      declaration(node, in: flow)
    }
  }

  @FlowBuilder<Walk>
  private static func declaration(_ node: Node, in flow: [Node]) -> [Declaration<Walk>] {
    let name = "S\(node.id)"
    let code = node.code
    let id = node.id
    switch node.kind {
    case .action:
      if code.isAsynchronous {
        Action(name, isFinal: node.isFinal, code.asynchronousAction(id))
      } else {
        Action(name, isFinal: node.isFinal, code.action(id))
      }
    case .condition(let modulus, let yes):
      if let yes {
        if code.isAsynchronous {
          Condition(
            name, code.asynchronousCondition(id, modulus: modulus),
            yes: { jump(yes, in: flow) }, no: {})
        } else {
          Condition(
            name, code.condition(id, modulus: modulus), yes: { jump(yes, in: flow) }, no: {})
        }
      } else if code.isAsynchronous {
        Condition(name, isFinal: true, code.asynchronousCondition(id, modulus: modulus))
      } else {
        Condition(name, isFinal: true, code.condition(id, modulus: modulus))
      }
    case .multiple(let exits, let hasDefault):
      if node.isFinal {
        if code.isAsynchronous {
          MultipleCondition(name, isFinal: true, code.asynchronousKey(id))
        } else {
          MultipleCondition(name, isFinal: true, code.key(id))
        }
      } else {
        let cases = exits.indices.compactMap { keyedCase($0, exits[$0], in: flow) }
        if code.isAsynchronous {
          MultipleCondition(
            name, code.asynchronousKey(id),
            exits: {
              for exit in cases { exit }
              if hasDefault { Default {} }
            })
        } else {
          MultipleCondition(
            name, code.key(id),
            exits: {
              for exit in cases { exit }
              if hasDefault { Default {} }
            })
        }
      }
    case .dispatch(let branches, let merge, let tolerates):
      let join: JoinPolicy = tolerates ? .toleratingFailures(1) : .all
      if let merge {
        let failsAt = merge.fails ? id : nil
        Dispatch(
          name, isFinal: node.isFinal, join: join,
          merge: { context, branch in try Walk.merge(&context, branch, failsAt: failsAt) },
          branches: {
            for branch in branches {
              Branch { declarations(branch) }
            }
          })
      } else {
        Dispatch(
          name, isFinal: node.isFinal, join: join,
          branches: {
            for branch in branches {
              Branch { declarations(branch) }
            }
          })
      }
    }
  }

  private static func keyedCase(_ key: Int, _ exit: KeyedExit, in flow: [Node]) -> Case<Walk, Int>?
  {
    switch exit {
    case .jump(let target): Case(key) { jump(target, in: flow) }
    case .fallThrough: Case(key) {}
    case .missing: nil
    }
  }

  @FlowBuilder<Walk>
  private static func jump(_ jump: Jump, in flow: [Node]) -> [Declaration<Walk>] {
    switch jump {
    case .goTo(let index): GoTo("S\(flow[index].id)")
    case .final(let id): Action("S\(id)", isFinal: true)
    }
  }
}
