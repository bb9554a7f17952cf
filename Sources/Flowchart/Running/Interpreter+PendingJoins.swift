// A synchronous run with dispatches: ``Interpreter/runSynchronously(cursor:context:)`` runs a
// synchronous chart without suspending, each dispatch's branches one after another, keeping
// the dispatches it is inside on the cursor's stack of pending joins rather than in the call
// stack; and ``Interpreter/runNested(from:context:control:)``, the inner run of a synchronous
// subflow's visit or of a map's element run inline.

extension Interpreter {
  /// Runs the flow at the cursor to one of its final states without suspending; a dispatch
  /// runs its branches one after another, in declaration order (as far as prerequisites
  /// allow), each to its end before the next starts, then joins them as a concurrent run
  /// would.
  ///
  /// The dispatches the run is inside are the cursor's pending joins, so nesting does not
  /// grow the call stack. A flow's failure goes to the innermost pending join, which
  /// tolerates it or fails in turn, in the flow that dispatched: a loop, not recursion. A
  /// synchronous run has no cancellation handler: it reads the task's cancellation where
  /// that costs nothing per step (at the path recorder's checkpoints, which include every
  /// flow's first state and come at least every ``PathRecorder/checkInterval`` states; at
  /// each dispatch; at the end of every flow; and when a state throws).
  @inlinable
  func runSynchronously(
    cursor: inout Cursor<Context>, context: inout Context
  ) throws(RunError) -> Decision {
    let control = RunControl.inert
    // A branch's failure, for its dispatch to count.
    var branchError: RunError? = nil
    while true {
      do throws(RunError) {
        if let error = branchError {
          branchError = nil
          if let decision = try endBranch(
            cursor: &cursor, context: &context, ended: .failure(error))
          {
            return decision
          }
        }
        while true {
          if let decision = try runSynchronousStates(
            cursor: &cursor, context: &context, control: control, reporting: Uncontrolled.self)
          {
            try endFlow(at: cursor.state, path: cursor.path, control: control)
            guard
              let ended = try endFlowSucceeded(
                cursor: &cursor, context: &context, decision: decision)
            else { continue }
            return ended
          }
          let state = cursor.state
          let node = graph.nodeBase[Int(state)]
          switch node.kind {
          case .dispatch:
            _ = try enter(state, path: &cursor.path, flow: cursor.flow, control: control)
            if Task.isCancelled { throw cancellationError(at: state, path: cursor.path) }
            let plan = graph.dispatches[Int(node.alternative)]
            let parentPath = cursor.restartPath(PathRecorder(limit: stepLimit))
            cursor.joins.append(
              PendingJoin(
                dispatch: state, original: context, branchCount: plan.branchStarts.count,
                parentPath: parentPath))
            // The first branch to run waits for none, so it starts from the context as it is.
            cursor.state = plan.branchStarts[plan.order.isEmpty ? 0 : Int(plan.order[0])]
          case .modified:
            // Modifiers that need no waiting (see `Interpreter+Modifiers.swift`).
            _ = try enter(state, path: &cursor.path, flow: cursor.flow, control: control)
            let decision: Decision
            switch try runModifiedSynchronously(
              node, at: state, cursor: &cursor, context: &context)
            {
            case .decided(let outcome):
              guard cursor.follow(outcome, from: node) else { continue }
              decision = outcome.decision
            case .caught: continue
            case .ended(let ended): decision = ended
            }
            try endFlow(at: state, path: cursor.path, control: control)
            guard
              let ended = try endFlowSucceeded(
                cursor: &cursor, context: &context, decision: decision)
            else { continue }
            return ended
          case .asyncAction, .asyncCondition, .asyncSelect, .asyncDecideKey:
            throw asynchronousStateError(state, path: cursor.path)
          case .pass, .action, .condition, .select, .decideKey, .callAction, .callCondition:
            preconditionFailure("synchronous states run in runSynchronousStates")
          }
        }
      } catch {
        guard !cursor.joins.isEmpty else { throw error }
        branchError = error
      }
    }
  }

  /// Runs the chart from `start` to a final state on `context`, without suspending: the
  /// inner run of a synchronous subflow's visit, or of a map's element run inline.
  ///
  /// The run is a part of one state of an outer run, so its boundaries are those of the
  /// ``Nested`` loop: it does not ask its task whether it was cancelled before its first
  /// state or after its last (the outer run's boundaries do), only at its path's later
  /// checkpoints and when a state throws. A chart with dispatches or modified states goes on
  /// in ``runSynchronously(cursor:context:)`` from the first of them.
  ///
  /// - Parameter control: ``RunControl/inert``, which the caller keeps at hand (reading the
  ///   global costs a call on every visit).
  /// - Precondition: the chart is synchronous.
  @inlinable
  func runNested(
    from start: Int32, context: inout Context, control: RunControl
  ) throws(RunError) -> (decision: Decision, finalState: Int32) {
    var cursor = Cursor<Context>(at: start, stepLimit: stepLimit)
    if let decision = try runSynchronousStates(
      cursor: &cursor, context: &context, control: control, reporting: Nested.self)
    {
      return (decision, cursor.state)
    }
    let decision = try runSynchronously(cursor: &cursor, context: &context)
    return (decision, cursor.state)
  }

  /// ``endBranch(cursor:context:ended:)`` for a flow that succeeded: the top-level flow of
  /// a run with no dispatch pending ends here, without the generic code out of line (a
  /// subflow's inner run ends this way at each visit).
  @inlinable @inline(__always)
  func endFlowSucceeded(
    cursor: inout Cursor<Context>, context: inout Context, decision: Decision
  ) throws(RunError) -> Decision? {
    if cursor.joins.isEmpty { return decision }
    return try endBranch(cursor: &cursor, context: &context, ended: .success(decision))
  }

  /// Ends a synchronous run's flow at the cursor: the run itself, or a branch of the
  /// innermost pending dispatch, which counts it under its join policy, then starts its
  /// next branch or, once it needs no more, joins and follows the dispatch's exit.
  ///
  /// Branches whose prerequisites did not all succeed are skipped; once the policy's
  /// quorum is met, the branches not yet run are not started.
  ///
  /// - Returns: The run's decision once the top-level flow ended; `nil` when the cursor
  ///   moved on.
  /// - Throws: The dispatch's failure, as the flow that dispatched failed (the caller hands
  ///   it to the next pending join, if any): when the flow ended with `ended`'s error and
  ///   the policy does not tolerate it, or a merge or the report threw.
  @usableFromInline
  func endBranch(
    cursor: inout Cursor<Context>, context: inout Context, ended: Result<Decision, RunError>
  ) throws(RunError) -> Decision? {
    var ended = ended
    while !cursor.joins.isEmpty {
      let top = cursor.joins.count - 1
      let dispatch = cursor.joins[top].dispatch
      let plan = graph.dispatches[Int(graph.nodeBase[Int(dispatch)].alternative)]
      let count = plan.branchStarts.count
      let position = cursor.joins[top].ranCount
      let index = plan.order.isEmpty ? position : Int(plan.order[position])
      var succeeded = true
      switch ended {
      case .success:
        cursor.joins[top].tally.successes += 1
      case .failure(let error):
        succeeded = false
        cursor.joins[top].tally.failures += 1
        guard cursor.joins[top].tally.failures <= plan.tolerance, !Task.isCancelled,
          !isScriptProblem(error)
        else {
          throw dispatchFailure(error, cursor: &cursor)
        }
        cursor.joins[top].tally.failed.append((index, error))
      }
      // The next branch to run: none once the quorum is met.
      var next = cursor.joins[top].tally.successes < plan.quorum ? position + 1 : count
      while next < count, !plan.prerequisites.isEmpty {
        // With prerequisites, the plan has an order, in which each branch's prerequisites
        // come before it.
        let candidate = Int(plan.order[next])
        guard
          plan.prerequisites[candidate].contains(where: {
            cursor.joins[top].tally.didNotSucceed(Int($0))
          })
        else { break }
        cursor.joins[top].tally.skipped.append(candidate)
        cursor.joins[top].tally.failures += 1
        if cursor.joins[top].tally.failures > plan.tolerance {
          // Too many: the dispatch fails with the failure that skipped the branch.
          let failed = cursor.joins[top].tally.failed
          throw dispatchFailure(failed[failed.count - 1].error, cursor: &cursor)
        }
        next += 1
      }
      let finishing = next >= count
      let branchPath = cursor.restartPath(
        finishing
          ? PathRecorder(resuming: cursor.joins[top].parentPath, limit: stepLimit)
          : PathRecorder(limit: stepLimit))
      if succeeded {
        cursor.joins[top].finished[index] = FinishedBranch(context: context, path: branchPath)
      }
      context = cursor.joins[top].original
      guard finishing else {
        cursor.joins[top].ranCount = next
        let nextIndex = plan.order.isEmpty ? next : Int(plan.order[next])
        if !plan.prerequisites.isEmpty {
          try startContext(of: nextIndex, in: plan, cursor: &cursor, context: &context)
        }
        cursor.state = plan.branchStarts[nextIndex]
        return nil
      }
      let pending = cursor.joins.removeLast()
      cursor.state = pending.dispatch
      // A failed join is the dispatching flow's: the caller hands it to the next pending
      // join, the one that flow is a branch of.
      try join(
        pending.finished, pending.tally, at: pending.dispatch, original: pending.original,
        into: &context, path: &cursor.path)
      guard cursor.follow(.next, from: graph.nodeBase[Int(pending.dispatch)]) else {
        return nil
      }
      try endFlow(at: pending.dispatch, path: cursor.path, control: .inert)
      ended = .success(Outcome.next.decision)
    }
    return try ended.get()
  }

  /// The innermost pending dispatch fails with its branch's `error`: it is no longer
  /// pending, and its error, with the path of the flow that dispatched before the branch's,
  /// is that flow's.
  @usableFromInline
  func dispatchFailure(_ error: RunError, cursor: inout Cursor<Context>) -> RunError {
    let pending = cursor.joins.removeLast()
    cursor.state = pending.dispatch
    return branchFailure(error, after: [pending.parentPath.states], cancelled: false)
  }

  /// Merges the contexts of branch `index`'s prerequisites into `context`, the context
  /// before the innermost pending dispatch, in declaration order: where a synchronous run
  /// starts the branch. A merge that throws fails the dispatch, in the flow that
  /// dispatched.
  @usableFromInline
  func startContext(
    of index: Int, in plan: DispatchPlan, cursor: inout Cursor<Context>,
    context: inout Context
  ) throws(RunError) {
    let top = cursor.joins.count - 1
    do {
      try plan.mergePrerequisites(
        of: index, finished: cursor.joins[top].finished, original: cursor.joins[top].original,
        into: &context)
    } catch {
      let pending = cursor.joins.removeLast()
      cursor.state = pending.dispatch
      _ = cursor.restartPath(PathRecorder(resuming: pending.parentPath, limit: stepLimit))
      throw failure(error, at: pending.dispatch, path: cursor.path, control: .inert)
    }
  }
}
