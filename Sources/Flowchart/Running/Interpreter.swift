/// Walks a compiled graph: the runtime behind ``Flowchart/run(with:startingAt:stepLimit:)``
/// and ``Flowchart/runSynchronously(with:startingAt:stepLimit:)``.
///
/// The interpreter is iterative: following an arrow is an assignment to a local index,
/// never a call, so long and cyclic runs do not grow the stack. Consecutive synchronous
/// states run in one tight loop (``runSynchronousStates(from:context:path:signal:)``)
/// with no suspension and no allocation per step; the asynchronous loop only takes over
/// for `async` states and dispatches.
@usableFromInline
struct Interpreter<Context: Sendable>: Sendable {
  @usableFromInline let graph: Graph<Context>
  /// The most states a flow may enter; `Int.max` for no limit.
  @usableFromInline let stepLimit: Int

  @usableFromInline
  init(graph: Graph<Context>, stepLimit: Int) {
    self.graph = graph
    self.stepLimit = stepLimit
  }

  /// What a synchronous state's code decided, as the run loop follows it.
  @usableFromInline
  enum Transition {
    /// An action finished.
    case done
    /// A condition decided `true`.
    case yes
    /// A condition decided `false`.
    case no
    /// A multiple condition's key leads to this state.
    case select(Int32)
  }

  /// Why the synchronous loop handed control back.
  @usableFromInline
  enum Stop {
    /// The flow ended at this final state, which decided this.
    case final(Int32, Decision)
    /// This state is asynchronous or a dispatch; it has not been entered yet.
    case suspended(Int32)
  }

  // MARK: - Synchronous states

  /// Runs synchronous states from `state` until the flow ends or reaches a state that
  /// needs the asynchronous loop.
  ///
  /// `signal` is checked before each state; `nil` in a synchronous run, which has no task
  /// to cancel.
  // Specialized for the caller's context, but not inlined: the asynchronous loop would copy
  // it into each of its resumption points.
  @inlinable @inline(never)
  func runSynchronousStates(
    from state: Int32, context: inout Context, path: inout PathRecorder, signal: CancellationSignal?
  ) throws(RunError) -> Stop {
    let nodes = graph.nodeBase
    var state = state
    while true {
      let kind = nodes[Int(state)].kind
      if kind.suspends { return .suspended(state) }
      try enter(state, path: &path, signal: signal)
      let transition: Transition
      do {
        switch kind {
        case .pass:
          transition = .done
        case .action:
          try nodes[Int(state)].perform(&context)
          transition = .done
        case .condition:
          transition = try nodes[Int(state)].decide(&context) ? .yes : .no
        case .select:
          transition = .select(try nodes[Int(state)].select(&context))
        case .decideKey:
          let key = try nodes[Int(state)].decideKey(&context)
          return .final(state, .key(key))
        case .asyncAction, .asyncCondition, .asyncSelect, .asyncDecideKey, .dispatch:
          preconditionFailure("asynchronous states return before they are entered")
        }
      } catch {
        throw failure(error, at: state, path: path)
      }
      // Read after the call, so that nothing but the state index lives across it.
      let node = nodes[Int(state)]
      switch transition {
      case .done:
        if node.isFinal { return .final(state, .done) }
        state = node.next
      case .yes:
        if node.isFinal { return .final(state, .yes) }
        state = node.next
      case .no:
        if node.isFinal { return .final(state, .no) }
        state = node.alternative
      case .select(let target):
        state = target
      }
    }
  }

  // MARK: - Asynchronous flows

  /// Runs the flow from `state` to one of its final states, in the current task.
  ///
  /// A cancellation handler on the task raises a ``CancellationSignal`` that the loop checks
  /// before each state.
  @inlinable
  func run(
    from state: Int32, context: inout Context, path: inout PathRecorder
  ) async throws(RunError) -> (state: Int32, decision: Decision) {
    let signal = CancellationSignal()
    let outcome = await withTaskCancellationHandler {
      () async -> Result<(state: Int32, decision: Decision), RunError> in
      do throws(RunError) {
        return .success(try await run(from: state, context: &context, path: &path, signal: signal))
      } catch {
        return .failure(error)
      }
    } onCancel: {
      signal.cancel()
    }
    return try outcome.get()
  }

  /// The asynchronous loop: hands stretches of synchronous states to
  /// ``runSynchronousStates(from:context:path:signal:)`` and runs the rest itself.
  @inlinable
  func run(
    from state: Int32, context: inout Context, path: inout PathRecorder, signal: CancellationSignal
  ) async throws(RunError) -> (state: Int32, decision: Decision) {
    var state = state
    while true {
      var node = graph.nodeBase[Int(state)]
      if !node.kind.suspends {
        switch try runSynchronousStates(
          from: state, context: &context, path: &path, signal: signal)
        {
        case .final(let final, let decision): return (final, decision)
        case .suspended(let suspended): state = suspended
        }
        node = graph.nodeBase[Int(state)]
      }
      try enter(state, path: &path, signal: signal)
      if node.kind == .dispatch {
        try await runDispatch(
          graph.dispatches[Int(node.alternative)], at: state, context: &context, path: &path)
        if node.isFinal { return (state, .done) }
        state = node.next
        continue
      }
      do {
        switch node.kind {
        case .asyncAction:
          try await node.perform(&context)
          if node.isFinal { return (state, .done) }
          state = node.next
        case .asyncCondition:
          let yes = try await node.decide(&context)
          if node.isFinal { return (state, yes ? .yes : .no) }
          state = yes ? node.next : node.alternative
        case .asyncSelect:
          state = try await node.select(&context)
        case .asyncDecideKey:
          let key = try await node.decideKey(&context)
          return (state, .key(key))
        case .pass, .action, .condition, .select, .decideKey, .dispatch:
          preconditionFailure("synchronous states and dispatches are handled above")
        }
      } catch {
        throw failure(error, at: state, path: path)
      }
    }
  }

  /// Runs a dispatch's branches as child tasks, then folds their contexts back in
  /// declaration order.
  ///
  /// One cancellation handler and one signal serve all the branches: the signal rises when
  /// the dispatching task is cancelled or when a branch fails, and every branch checks it
  /// before each state.
  @inlinable
  func runDispatch(
    _ plan: DispatchPlan, at state: Int32, context: inout Context,
    path: inout PathRecorder
  ) async throws(RunError) {
    let snapshot = context
    let interpreter = self
    let signal = CancellationSignal()
    let outcome = await withTaskCancellationHandler {
      await withTaskGroup(of: BranchOutcome<Context>.self) { group in
        for (index, start) in plan.branchStarts.enumerated() {
          group.addTask {
            var branchContext = snapshot
            var branchPath = PathRecorder(limit: interpreter.stepLimit)
            do throws(RunError) {
              _ = try await interpreter.run(
                from: start, context: &branchContext, path: &branchPath, signal: signal)
              return BranchOutcome(
                index: index,
                result: .success(
                  FinishedBranch(context: branchContext, path: branchPath.finish())))
            } catch {
              return BranchOutcome(index: index, result: .failure(error))
            }
          }
        }
        var finished = [FinishedBranch<Context>?](repeating: nil, count: plan.branchStarts.count)
        for await outcome in group {
          switch outcome.result {
          case .success(let branch):
            finished[outcome.index] = branch
          case .failure(let error):
            // Leaving the group waits for the siblings, which stop at their next state.
            signal.cancel()
            group.cancelAll()
            return Result<[FinishedBranch<Context>?], RunError>.failure(error)
          }
        }
        return .success(finished)
      }
    } onCancel: {
      signal.cancel()
    }
    switch outcome {
    case .failure(let error):
      throw branchFailure(error, after: path)
    case .success(let branches):
      for branch in branches {
        // Every branch succeeded, so every slot is filled.
        try join(branch.unsafelyUnwrapped, with: plan, at: state, into: &context, path: &path)
      }
    }
  }

  // MARK: - Synchronous flows

  /// Runs the flow from `state` to one of its final states without suspending; a dispatch
  /// runs its branches one after another, in declaration order.
  @inlinable
  func runSynchronously(
    from state: Int32, context: inout Context, path: inout PathRecorder
  ) throws(RunError) -> (state: Int32, decision: Decision) {
    var state = state
    while true {
      let current: Int32
      switch try runSynchronousStates(
        from: state, context: &context, path: &path, signal: nil)
      {
      case .final(let final, let decision): return (final, decision)
      case .suspended(let suspended): current = suspended
      }
      let node = graph.nodeBase[Int(current)]
      guard node.kind == .dispatch else {
        throw asynchronousStateError(current, path: path)
      }
      try enter(current, path: &path, signal: nil)
      try runDispatchSynchronously(
        graph.dispatches[Int(node.alternative)], at: current, context: &context, path: &path)
      if node.isFinal { return (current, .done) }
      state = node.next
    }
  }

  /// Runs a dispatch's branches one after another, then folds them back in declaration
  /// order.
  @usableFromInline
  func runDispatchSynchronously(
    _ plan: DispatchPlan, at state: Int32, context: inout Context,
    path: inout PathRecorder
  ) throws(RunError) {
    // Every branch ends before any joins, as in a concurrent run, so a failing branch's
    // path holds only its own states and the merge sees the same inputs.
    var branches: [FinishedBranch<Context>] = []
    branches.reserveCapacity(plan.branchStarts.count)
    for start in plan.branchStarts {
      var branchContext = context
      var branchPath = PathRecorder(limit: stepLimit)
      do throws(RunError) {
        _ = try runSynchronously(from: start, context: &branchContext, path: &branchPath)
      } catch {
        throw branchFailure(error, after: path)
      }
      branches.append(FinishedBranch(context: branchContext, path: branchPath.finish()))
    }
    for branch in branches {
      try join(branch, with: plan, at: state, into: &context, path: &path)
    }
  }

  // MARK: - Shared steps

  /// Checks the step limit and cancellation, then records `state` as entered.
  @inlinable @inline(__always)
  func enter(
    _ state: Int32, path: inout PathRecorder, signal: CancellationSignal?
  ) throws(RunError) {
    if signal?.isCancelled ?? false {
      throw cancellationError(at: state, path: path)
    }
    if _slowPath(!path.record(state)) {
      throw stepLimitError(at: state, path: path)
    }
  }

  @usableFromInline
  func stepLimitError(at state: Int32, path: borrowing PathRecorder) -> RunError {
    error(
      .stepLimitExceeded, at: state, path: path,
      reason:
        "The run exceeded its step limit of \(stepLimit) states before entering \(describe(state)). A cycle may never reach a final state, or the limit may be too low."
    )
  }

  @usableFromInline
  func cancellationError(at state: Int32, path: borrowing PathRecorder) -> RunError {
    error(
      .cancelled, at: state, path: path,
      reason: "The run was cancelled before entering \(describe(state)).")
  }

  /// Folds one finished branch into the dispatching flow.
  @usableFromInline
  func join(
    _ branch: FinishedBranch<Context>, with plan: DispatchPlan,
    at state: Int32, into context: inout Context, path: inout PathRecorder
  ) throws(RunError) {
    path.append(branch.path)
    do {
      try plan.merge(branch.context, into: &context)
    } catch {
      throw failure(error, at: state, path: path)
    }
  }

  /// A branch's error, with the path of the flow that dispatched the branch before its own.
  @usableFromInline
  func branchFailure(_ error: RunError, after path: borrowing PathRecorder) -> RunError {
    let prefix = path.states.map(StateID.init)
    return error.prefixed(by: prefix, names: prefix.map { graph.records[$0.index].name })
  }

  /// The run error for an error thrown by a state's code.
  @usableFromInline
  func failure(_ thrown: any Error, at state: Int32, path: borrowing PathRecorder) -> RunError {
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

  @usableFromInline
  func asynchronousStateError(_ state: Int32, path: borrowing PathRecorder) -> RunError {
    error(
      .asynchronousState, at: state, path: path,
      reason:
        "\(describe(state).capitalizedFirst) is asynchronous, so the chart cannot run synchronously. Use `try await chart.run(with:)`, or make the state's code synchronous."
    )
  }

  private func error(
    _ kind: RunError.Kind, at state: Int32, path: borrowing PathRecorder,
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

/// A dispatch branch that ended at one of its final states: its context and its path.
@usableFromInline
struct FinishedBranch<Context: Sendable>: Sendable {
  @usableFromInline var context: Context
  @usableFromInline var path: RecordedPath

  @usableFromInline
  init(context: Context, path: RecordedPath) {
    self.context = context
    self.path = path
  }
}

/// What a dispatch branch's task returns: which branch, and how it ended.
@usableFromInline
struct BranchOutcome<Context: Sendable>: Sendable {
  @usableFromInline var index: Int
  @usableFromInline var result: Result<FinishedBranch<Context>, RunError>

  @usableFromInline
  init(index: Int, result: Result<FinishedBranch<Context>, RunError>) {
    self.index = index
    self.result = result
  }
}
