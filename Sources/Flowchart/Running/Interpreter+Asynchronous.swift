// The asynchronous loop: a flow of an asynchronous run, from its cursor to a final state.
// It hands each stretch of synchronous states to the synchronous loop
// (`Interpreter+Synchronous.swift`), runs asynchronous actions, conditions and selections
// itself through ``Node/call(_:)``, and hands the rarer kinds (a dispatch, a final
// asynchronous multiple condition, a modified state) to
// ``Interpreter/runComposite(_:at:cursor:context:control:)``, out of line so that the loop's
// async frame stays small (ARCHITECTURE.md, "Async frames").

extension Interpreter {
  /// Runs the top-level flow from the cursor's state to one of its final states, in the
  /// current task.
  ///
  /// A cancellation handler on the task raises the run's ``RunControl``, which the loop
  /// reads at each boundary.
  @inlinable
  func run(
    cursor: inout Cursor<Context>, context: inout Context, isolation: (any Actor)? = nil
  ) async throws(RunError) -> Decision {
    try await run(cursor: &cursor, context: &context, topLevel: RunControl(), isolation: isolation)
  }

  /// Runs the top-level flow under `control`: a live run's, which reports to its monitor.
  @inlinable
  func run(
    cursor: inout Cursor<Context>, context: inout Context, topLevel control: RunControl,
    isolation: (any Actor)? = nil
  ) async throws(RunError) -> Decision {
    try await raisingOnCancellation(control) { () async throws(RunError) in
      try await run(cursor: &cursor, context: &context, control: control, isolation: isolation)
    }
  }

  /// The asynchronous loop: hands stretches of synchronous states to
  /// ``runSynchronousStates(cursor:context:control:reporting:)`` and runs the rest itself.
  @inlinable
  func run(
    cursor: inout Cursor<Context>, context: inout Context, control: RunControl,
    isolation: (any Actor)? = nil
  ) async throws(RunError) -> Decision {
    do throws(RunError) {
      return try await runFlow(
        cursor: &cursor, context: &context, control: control, isolation: isolation)
    } catch {
      // Whatever stopped the flow, it stopped at the cursor's state: a live run reports it,
      // unless the flow parked there.
      if _slowPath(control.isObserved), !error.isParking {
        control.monitor.unsafelyUnwrapped.failed(cursor.state, flow: cursor.flow, error: error)
        keepResumePoint(of: cursor, context: context, control: control)
      }
      throw error
    }
  }

  /// Runs a top-level flow's `body` with a cancellation handler on the current task that
  /// raises `control`, which the flow reads at each boundary.
  @inlinable
  func raisingOnCancellation(
    _ control: RunControl, _ body: () async throws(RunError) -> Decision
  ) async throws(RunError) -> Decision {
    let outcome = await withTaskCancellationHandler {
      () async -> Result<Decision, RunError> in
      do throws(RunError) {
        return .success(try await body())
      } catch {
        return .failure(error)
      }
    } onCancel: {
      control.cancel()
    }
    return try outcome.get()
  }

  /// The body of ``run(cursor:context:control:)``.
  @inlinable
  func runFlow(
    cursor: inout Cursor<Context>, context: inout Context, control: RunControl,
    isolation: (any Actor)? = nil
  ) async throws(RunError) -> Decision {
    while true {
      var node = graph.nodeBase[Int(cursor.state)]
      if !node.kind.suspends {
        let ended =
          if let isolation {
            try await runSynchronousStates(
              on: isolation, cursor: &cursor, context: &context, control: control)
          } else if _slowPath(control.isObserved) {
            try runSynchronousStates(
              cursor: &cursor, context: &context, control: control, reporting: Reported.self)
          } else {
            try runSynchronousStates(
              cursor: &cursor, context: &context, control: control, reporting: Unreported.self)
          }
        if let decision = ended {
          try endFlow(at: cursor.state, path: cursor.path, control: control)
          return decision
        }
        node = graph.nodeBase[Int(cursor.state)]
        if !node.kind.suspends {
          // The synchronous loop stopped at a boundary because the run is paused.
          try await waitWhilePaused(
            before: cursor.state, path: cursor.path, context: context, flow: cursor.flow,
            control: control)
          continue
        }
      }
      let state = cursor.state
      while !(try enter(state, path: &cursor.path, flow: cursor.flow, control: control)) {
        try await waitWhilePaused(
          before: state, path: cursor.path, context: context, flow: cursor.flow, control: control)
      }
      let outcome: Outcome
      switch node.kind {
      case .asyncAction, .asyncCondition, .asyncSelect:
        if _slowPath(node.waitsForInput), control.flags.contains(.parks),
          parks(at: state, flow: cursor.flow, context: context, control: control)
        {
          // A waiting state with no value yet, or a delay before its deadline: the task
          // unwinds, and the live run keeps the cursor and the context until a value, the
          // deadline or a cancellation comes.
          throw RunError.parking
        }
        if _slowPath(node.waitsForInput), control.isObserved, !control.flags.contains(.parks) {
          // A dispatch branch of a live run waits in its task: a snapshot holds it there.
          outcome = try await runWaitingState(
            node, at: state, cursor: &cursor, context: &context, control: control)
        } else if _slowPath(control.isObserved), isSubflow(state) {
          // A subflow of a live run: a snapshot holds its inner run where it stands.
          outcome = try await runSubflowState(
            node, at: state, cursor: &cursor, context: &context, control: control)
        } else {
          outcome = try await runAsynchronous(
            node, at: state, cursor: &cursor, context: &context, control: control)
        }
      case .dispatch, .asyncDecideKey, .modified:
        switch try await runComposite(
          node, at: state, cursor: &cursor, context: &context, control: control)
        {
        case .decided(let decided): outcome = decided
        case .caught: continue
        case .ended(let decision): return decision
        }
      case .pass, .action, .condition, .select, .decideKey, .callAction, .callCondition:
        preconditionFailure("synchronous states run in runSynchronousStates")
      }
      if _slowPath(control.reportsEvents) {
        control.monitor.unsafelyUnwrapped.decided(
          state, flow: cursor.flow, outcome: outcome, context: context)
      }
      if cursor.follow(outcome, from: node) {
        try endFlow(at: state, path: cursor.path, control: control)
        return outcome.decision
      }
    }
  }

  /// Runs a state of the asynchronous loop other than an asynchronous action, condition or
  /// selection: a dispatch, a final asynchronous multiple condition, or a state with
  /// modifiers (see `Interpreter+Modifiers.swift`).
  ///
  /// Out of line, so that the loop's frame holds none of what these need. A task's async
  /// frames come from slabs of memory the task allocates (the first inside the task itself),
  /// so a smaller loop frame means fewer allocations for every dispatch branch's task.
  @inlinable @inline(never)
  func runComposite(
    _ node: Node, at state: Int32, cursor: inout Cursor<Context>, context: inout Context,
    control: RunControl
  ) async throws(RunError) -> ModifiedStep {
    switch node.kind {
    case .dispatch:
      try await runDispatch(
        graph.dispatches[Int(node.alternative)], at: state, cursor: &cursor,
        context: &context, control: control)
      return .decided(.next)
    case .asyncDecideKey:
      // Final by construction.
      return .ended(
        try await decideKey(node, at: state, cursor: &cursor, context: &context, control: control))
    case .modified:
      // Timeouts, retries and catch routes: see `Interpreter+Modifiers.swift`.
      return try await runModified(
        node, at: state, cursor: &cursor, context: &context, control: control)
    case .pass, .action, .condition, .select, .decideKey, .callAction, .callCondition,
      .asyncAction, .asyncCondition, .asyncSelect:
      preconditionFailure("the asynchronous loop runs these itself")
    }
  }

  /// Runs an asynchronous action, condition or non-final multiple condition, and returns
  /// what it decided.
  @inlinable @inline(__always)
  func runAsynchronous(
    _ node: Node, at state: Int32, cursor: inout Cursor<Context>, context: inout Context,
    control: RunControl
  ) async throws(RunError) -> Outcome {
    // A live run keeps the context from before the state: a failed state is retried from it.
    let before: Context? = _slowPath(control.isObserved) ? context : nil
    do {
      switch try await node.call(&context) {
      case .outcome(let outcome): return outcome
      case .key:
        preconditionFailure("only asynchronous actions, conditions and selections come here")
      }
    } catch {
      if let before { context = before }
      throw failure(error, at: state, path: cursor.path, control: control)
    }
  }

  /// Runs a final asynchronous multiple condition, which ends its flow with the key it
  /// decides.
  @inlinable @inline(never)
  func decideKey(
    _ node: Node, at state: Int32, cursor: inout Cursor<Context>, context: inout Context,
    control: RunControl
  ) async throws(RunError) -> Decision {
    let decision: Decision
    let before: Context? = _slowPath(control.isObserved) ? context : nil
    do {
      switch try await node.call(&context) {
      case .key(let decided): decision = decided
      case .outcome: preconditionFailure("a final multiple condition decides a key")
      }
    } catch {
      if let before { context = before }
      throw failure(error, at: state, path: cursor.path, control: control)
    }
    if _slowPath(control.isObserved) {
      control.monitor.unsafelyUnwrapped.decided(
        state, flow: cursor.flow, key: decision.key.unsafelyUnwrapped, context: context)
    }
    try endFlow(at: state, path: cursor.path, control: control)
    return decision
  }
}
