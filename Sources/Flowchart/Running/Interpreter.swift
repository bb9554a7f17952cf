/// Walks a compiled graph: the runtime behind ``Flowchart/run(with:startingAt:stepLimit:)``
/// and ``Flowchart/runSynchronously(with:startingAt:stepLimit:)``.
///
/// The interpreter is iterative: following an arrow is an assignment to a local index,
/// never a call, so long and cyclic runs do not grow the stack. Consecutive synchronous
/// states run in one tight loop (``runSynchronousStates(from:context:path:checksCancellation:)``)
/// with no suspension and no allocation per step; the asynchronous loop only takes over
/// for `async` states and dispatches.
struct Interpreter<Context: Sendable>: Sendable {
  let graph: Graph<Context>
  /// The most states a flow may enter; `Int.max` for no limit.
  let stepLimit: Int

  /// Why the synchronous loop handed control back.
  enum Stop {
    /// The flow ended at this final state, which decided this.
    case final(Int32, Decision)
    /// This state is asynchronous or a dispatch; it has not been entered yet.
    case suspended(Int32)
  }

  // MARK: - Synchronous states

  /// Runs synchronous states from `state` until the flow ends or reaches a state that
  /// needs the asynchronous loop.
  func runSynchronousStates(
    from state: Int32, context: inout Context, path: inout PathRecorder, checksCancellation: Bool
  ) throws(RunError) -> Stop {
    var state = state
    let nodes = graph.nodes
    while true {
      let node = nodes[Int(state)]
      switch node.instruction {
      case .asyncAction, .asyncCondition, .asyncSelect, .asyncDecideKey, .dispatch:
        return .suspended(state)
      case .pass, .action, .condition, .select, .decideKey:
        break
      }
      try enter(state, path: &path, checksCancellation: checksCancellation)
      do {
        switch node.instruction {
        case .pass:
          break
        case .action(let perform):
          try perform(&context)
        case .condition(let decide):
          let yes = try decide(&context)
          if node.isFinal { return .final(state, yes ? .yes : .no) }
          state = yes ? node.next : node.alternative
          continue
        case .select(let select):
          state = try select(&context)
          continue
        case .decideKey(let decide):
          return .final(state, .key(try decide(&context)))
        case .asyncAction, .asyncCondition, .asyncSelect, .asyncDecideKey, .dispatch:
          preconditionFailure("asynchronous instructions return before the state is entered")
        }
      } catch {
        throw failure(error, at: state, path: path)
      }
      if node.isFinal { return .final(state, .done) }
      state = node.next
    }
  }

  // MARK: - Asynchronous flows

  /// Runs the flow from `state` to one of its final states.
  func run(
    from state: Int32, context: inout Context, path: inout PathRecorder
  ) async throws(RunError) -> (state: Int32, decision: Decision) {
    var state = state
    while true {
      let stop = try runSynchronousStates(
        from: state, context: &context, path: &path, checksCancellation: true)
      guard case .suspended(let current) = stop else {
        guard case .final(let final, let decision) = stop else { preconditionFailure() }
        return (final, decision)
      }
      try enter(current, path: &path, checksCancellation: true)
      let node = graph.nodes[Int(current)]
      if case .dispatch(let plan) = node.instruction {
        try await runDispatch(
          graph.dispatches[Int(plan)], at: current, context: &context, path: &path)
      } else {
        do {
          switch node.instruction {
          case .asyncAction(let perform):
            try await perform(&context)
          case .asyncCondition(let decide):
            let yes = try await decide(&context)
            if node.isFinal { return (current, yes ? .yes : .no) }
            state = yes ? node.next : node.alternative
            continue
          case .asyncSelect(let select):
            state = try await select(&context)
            continue
          case .asyncDecideKey(let decide):
            return (current, .key(try await decide(&context)))
          case .pass, .action, .condition, .select, .decideKey, .dispatch:
            preconditionFailure("only asynchronous instructions suspend the synchronous loop")
          }
        } catch {
          throw failure(error, at: current, path: path)
        }
      }
      if node.isFinal { return (current, .done) }
      state = node.next
    }
  }

  /// Runs a dispatch's branches as child tasks, then folds their contexts back in
  /// declaration order.
  private func runDispatch(
    _ plan: DispatchPlan<Context>, at state: Int32, context: inout Context,
    path: inout PathRecorder
  ) async throws(RunError) {
    typealias Branch = (context: Context, path: PathRecorder)
    let snapshot = context
    let interpreter = self
    let outcome = await withTaskGroup(
      of: (Int, Result<Branch, RunError>).self, returning: Result<[Branch], RunError>.self
    ) { group in
      for (index, start) in plan.branchStarts.enumerated() {
        group.addTask {
          var branchContext = snapshot
          var branchPath = PathRecorder()
          do throws(RunError) {
            _ = try await interpreter.run(from: start, context: &branchContext, path: &branchPath)
            return (index, .success((branchContext, branchPath)))
          } catch {
            return (index, .failure(error))
          }
        }
      }
      var branches = [Branch?](repeating: nil, count: plan.branchStarts.count)
      for await (index, result) in group {
        switch result {
        case .success(let branch):
          branches[index] = branch
        case .failure(let error):
          // Leaving the group cancels the siblings and waits for them to stop.
          group.cancelAll()
          return .failure(error)
        }
      }
      return .success(branches.map { $0! })
    }
    switch outcome {
    case .failure(let error):
      throw branchFailure(error, after: path)
    case .success(let branches):
      for branch in branches {
        try join(branch.context, branch.path, with: plan, at: state, into: &context, path: &path)
      }
    }
  }

  // MARK: - Synchronous flows

  /// Runs the flow from `state` to one of its final states without suspending; a dispatch
  /// runs its branches one after another, in declaration order.
  func runSynchronously(
    from state: Int32, context: inout Context, path: inout PathRecorder
  ) throws(RunError) -> (state: Int32, decision: Decision) {
    var state = state
    while true {
      let stop = try runSynchronousStates(
        from: state, context: &context, path: &path, checksCancellation: false)
      guard case .suspended(let current) = stop else {
        guard case .final(let final, let decision) = stop else { preconditionFailure() }
        return (final, decision)
      }
      let node = graph.nodes[Int(current)]
      guard case .dispatch(let planIndex) = node.instruction else {
        throw asynchronousStateError(current, path: path)
      }
      try enter(current, path: &path, checksCancellation: false)
      let plan = graph.dispatches[Int(planIndex)]
      // Every branch ends before any joins, as in a concurrent run, so a failing branch's
      // path holds only its own states and the merge sees the same inputs.
      var branches: [(context: Context, path: PathRecorder)] = []
      branches.reserveCapacity(plan.branchStarts.count)
      for start in plan.branchStarts {
        var branchContext = context
        var branchPath = PathRecorder()
        do throws(RunError) {
          _ = try runSynchronously(from: start, context: &branchContext, path: &branchPath)
        } catch {
          throw branchFailure(error, after: path)
        }
        branches.append((branchContext, branchPath))
      }
      for branch in branches {
        try join(branch.context, branch.path, with: plan, at: current, into: &context, path: &path)
      }
      if node.isFinal { return (current, .done) }
      state = node.next
    }
  }

  // MARK: - Shared steps

  /// Checks the step limit and cancellation, then records `state` as entered.
  @inline(__always)
  private func enter(
    _ state: Int32, path: inout PathRecorder, checksCancellation: Bool
  ) throws(RunError) {
    if path.count >= stepLimit {
      throw error(
        .stepLimitExceeded, at: state, path: path,
        reason:
          "The run exceeded its step limit of \(stepLimit) states before entering \(describe(state)). A cycle may never reach a final state, or the limit may be too low."
      )
    }
    if checksCancellation && Task.isCancelled {
      throw error(
        .cancelled, at: state, path: path,
        reason: "The run was cancelled before entering \(describe(state)).")
    }
    path.record(state)
  }

  /// Folds one finished branch into the dispatching flow.
  private func join(
    _ branchContext: Context, _ branchPath: PathRecorder, with plan: DispatchPlan<Context>,
    at state: Int32, into context: inout Context, path: inout PathRecorder
  ) throws(RunError) {
    path.append(branchPath)
    guard let merge = plan.merge else { return }
    do {
      try merge(&context, branchContext)
    } catch {
      throw failure(error, at: state, path: path)
    }
  }

  /// A branch's error, with the path of the flow that dispatched the branch before its own.
  private func branchFailure(_ error: RunError, after path: PathRecorder) -> RunError {
    let prefix = path.states.map(StateID.init)
    return error.prefixed(by: prefix, names: prefix.map { graph.records[$0.index].name })
  }

  /// The run error for an error thrown by a state's code.
  private func failure(_ thrown: any Error, at state: Int32, path: PathRecorder) -> RunError {
    if let unmatched = thrown as? UnmatchedKey {
      return error(
        .unmatchedKey, at: state, path: path, unmatchedKey: unmatched.key,
        reason:
          "\(describe(state).capitalizedFirst) decided the key '\(unmatched.key)', which has no exit. Add a Case for it, or a Default."
      )
    }
    if thrown is CancellationError {
      return error(
        .cancelled, at: state, path: path, underlyingError: thrown,
        reason: "The run was cancelled while in \(describe(state)).")
    }
    return error(
      .thrown, at: state, path: path, underlyingError: thrown,
      reason: "The run stopped at \(describe(state)): it threw \(String(reflecting: thrown)).")
  }

  func asynchronousStateError(_ state: Int32, path: PathRecorder) -> RunError {
    error(
      .asynchronousState, at: state, path: path,
      reason:
        "\(describe(state).capitalizedFirst) is asynchronous, so the chart cannot run synchronously. Use `try await chart.run(with:)`, or make the state's code synchronous."
    )
  }

  private func error(
    _ kind: RunError.Kind, at state: Int32, path: PathRecorder,
    underlyingError: (any Error)? = nil, unmatchedKey: (any Hashable & Sendable)? = nil,
    reason: String
  ) -> RunError {
    let states = path.states
    return RunError(
      kind, state: StateID(state), stateName: graph.records[Int(state)].name,
      path: states.map(StateID.init), pathNames: states.map { graph.records[Int($0)].name },
      underlyingError: underlyingError, unmatchedKey: unmatchedKey, reason: reason)
  }

  /// `action 'Fetch' (App/File.swift:12)`.
  private func describe(_ state: Int32) -> String {
    let record = graph.records[Int(state)]
    return "\(record.kind) '\(record.name)' (\(record.location))"
  }
}

extension String {
  var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
