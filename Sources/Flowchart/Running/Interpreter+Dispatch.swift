// A dispatch in an asynchronous run: its branches as child tasks (or, limited and
// unobserved, in a few worker tasks), each branch a flow of its own with its own cursor, the
// join policy applied as they end, then the join (`Interpreter+Join.swift`). The types the
// scheduling shares are in `DispatchScheduling.swift`.

extension Interpreter {
  /// Runs branch `index` of the dispatch at `state` from its start, `start`, on `context`,
  /// as a child task's body, and returns how it ended.
  ///
  /// Out of line, and apart from ``resumeBranch(_:from:of:parentFlow:control:ends:)``, so
  /// that a branch's frames hold only what it runs (see
  /// ``runComposite(_:at:cursor:context:control:)``).
  @inlinable @inline(never)
  func runBranch(
    _ index: Int, at start: Int32, context: Context, of state: Int32, parentFlow: Int32,
    control: RunControl, ends: BranchEnds<Context>?
  ) async -> BranchOutcome<Context> {
    var branchContext = context
    var branch = Cursor<Context>(at: start, stepLimit: stepLimit)
    if let monitor = control.monitor {
      branch.flow = monitor.branchStarted(
        index, of: state, from: parentFlow, context: branchContext)
    }
    let decision: Decision
    do throws(RunError) {
      decision = try await run(cursor: &branch, context: &branchContext, control: control)
    } catch {
      ends?.failed(index, flow: branch.flow)
      return BranchOutcome(index: index, result: .failure(error))
    }
    return branchEnded(
      index, of: state, branch: branch, context: branchContext, decision: decision,
      control: control, ends: ends)
  }

  /// Runs a retried branch that failed from where it stopped (`point`): as
  /// ``runBranch(_:at:context:of:parentFlow:control:ends:)``.
  @inlinable @inline(never)
  func resumeBranch(
    _ index: Int, from point: FlowResumePoint<Context>, of state: Int32, parentFlow: Int32,
    control: RunControl, ends: BranchEnds<Context>?
  ) async -> BranchOutcome<Context> {
    var branchContext = point.context
    var branch = Cursor(resuming: point, stepLimit: stepLimit)
    if let monitor = control.monitor {
      branch.flow = monitor.branchStarted(
        index, of: state, from: parentFlow, context: branchContext)
    }
    let decision: Decision
    do throws(RunError) {
      decision = try await resume(
        point, cursor: &branch, context: &branchContext, control: control)
    } catch {
      ends?.failed(index, flow: branch.flow)
      return BranchOutcome(index: index, result: .failure(error))
    }
    return branchEnded(
      index, of: state, branch: branch, context: branchContext, decision: decision,
      control: control, ends: ends)
  }

  /// How a branch that ended at a final state ends: recorded for a retry and a snapshot
  /// (with its `decision`), then reported.
  @inlinable
  func branchEnded(
    _ index: Int, of state: Int32, branch: consuming Cursor<Context>, context: Context,
    decision: Decision, control: RunControl, ends: BranchEnds<Context>?
  ) -> BranchOutcome<Context> {
    let flow = branch.flow
    let done = FinishedBranch(context: context, path: branch.path.finish())
    ends?.finished(index, done, decision: decision)
    if let monitor = control.monitor {
      monitor.branchEnded(index, of: state, flow: flow)
    }
    return BranchOutcome(index: index, result: .success(done))
  }

  /// Runs a dispatch's branches as child tasks, each with a cursor of its own, then joins
  /// the ones that succeeded in declaration order.
  ///
  /// Branches start in declaration order, at most the plan's `maxConcurrency` at once, each
  /// once its prerequisites have ended, from the context before the dispatch merged with
  /// theirs. The branches share one ``RunControl``, raised when the dispatching task is
  /// cancelled, when a branch fails beyond the join policy's tolerance, or when the
  /// policy's quorum is met; every branch reads it at each boundary.
  @inlinable @inline(never)
  func runDispatch(
    _ plan: DispatchPlan, at state: Int32, cursor: inout Cursor<Context>,
    context: inout Context, control parent: RunControl,
    resuming resumed: DispatchResume<Context>? = nil
  ) async throws(RunError) {
    let original = context
    let interpreter = self
    let control = RunControl.branches(of: parent)
    let parentFlow = cursor.flow
    // A live run records how its branches end, to retry the dispatch if it fails.
    let ends =
      control.monitor == nil
      ? nil
      : branchEnds(
        of: control, count: plan.branchStarts.count, dispatch: state, cursor: cursor,
        original: original)
    if let monitor = control.monitor { monitor.dispatchStarted(state, flow: parentFlow) }
    // Limited, without prerequisites, unobserved and not retried: branches go to workers.
    let inWorkers =
      plan.maxConcurrency < plan.branchStarts.count && plan.prerequisites.isEmpty
      && resumed == nil && control.monitor == nil
    let outcome = await withTaskCancellationHandler {
      if inWorkers {
        return await runBranchesInWorkers(
          plan, original: original, control: control, parent: parent)
      }
      // A throwing group, though no branch's task throws (each reports its failure in its
      // outcome): `addTask` hands a throwing group's child function to the task as it is,
      // where a non-throwing group's wraps it in a thunk, one more allocation a branch.
      return await withThrowingTaskGroup(of: BranchOutcome<Context>.self) { group in
        let count = plan.branchStarts.count
        var finished = [FinishedBranch<Context>?](repeating: nil, count: count)
        var tally = JoinTally()
        var schedule = BranchSchedule(count: count, waitsForOthers: !plan.prerequisites.isEmpty)
        var prerequisites = plan.prerequisites
        if let resumed {
          // A retried dispatch: the branches that finished keep their results.
          resumed.prepare(
            finished: &finished, tally: &tally, schedule: &schedule,
            prerequisites: &prerequisites, ends: ends)
          if tally.successes >= min(plan.quorum, count) {
            return DispatchOutcome<Context>.joined(finished, tally)
          }
        }
        var running = 0
        while true {
          // Start the branches that may start now.
          while running < plan.maxConcurrency,
            let index = schedule.nextReady(prerequisites, finished: finished)
          {
            var branchContext = original
            if !plan.prerequisites.isEmpty {
              do {
                try plan.mergePrerequisites(
                  of: index, finished: finished, original: original, into: &branchContext)
              } catch {
                control.cancel()
                group.cancelAll()
                return .mergeFailed(error)
              }
            }
            let start = plan.branchStarts[index]
            // A retried branch that failed starts where it stopped.
            let point = resumed?.points[index]
            running += 1
            group.addTask { [branchContext] in
              // Each way in its own function, so that a branch's frames hold only what it
              // runs (see `runBranch`).
              if let point {
                return await interpreter.resumeBranch(
                  index, from: point, of: state, parentFlow: parentFlow, control: control,
                  ends: ends)
              }
              return await interpreter.runBranch(
                index, at: start, context: branchContext, of: state, parentFlow: parentFlow,
                control: control, ends: ends)
            }
          }
          guard let next = await group.nextResult() else { break }
          guard case .success(let outcome) = next else {
            preconditionFailure("a branch's task reports its failure in its outcome, never throws")
          }
          running -= 1
          switch outcome.result {
          case .success(let branch):
            finished[outcome.index] = branch
            tally.successes += 1
            if tally.successes == plan.quorum, tally.successes < count {
              // The quorum is met: the others stop at their next boundary, and whatever
              // they report is dropped. Leaving the group waits for them.
              control.cancel()
              group.cancelAll()
              return .joined(finished, tally)
            }
          case .failure(let error):
            tally.failures += 1
            // A failure the policy does not tolerate is the run's: the siblings stop at
            // their next boundary, and whatever they report is dropped. A cancelled run
            // tolerates none, and no policy tolerates a script's own problem.
            if tally.failures > plan.tolerance || parent.isCancelled || Task.isCancelled
              || isScriptProblem(error)
            {
              control.cancel()
              group.cancelAll()
              return .branchFailed(error)
            }
            tally.failed.append((outcome.index, error))
            if !plan.prerequisites.isEmpty,
              !schedule.skipDependents(plan.prerequisites, tally: &tally, tolerance: plan.tolerance)
            {
              control.cancel()
              group.cancelAll()
              return .branchFailed(error)
            }
          }
        }
        return .joined(finished, tally)
      }
    } onCancel: {
      control.cancel()
    }
    if let monitor = control.monitor { monitor.unregister(control) }
    ends?.dispatchEnded()
    switch outcome {
    case .branchFailed(let error):
      ends?.keep(dispatch: state, flow: parentFlow)
      throw branchFailure(
        error, after: [cursor.path.states], cancelled: parent.isCancelled || Task.isCancelled)
    case .mergeFailed(let error):
      ends?.keep(dispatch: state, flow: parentFlow)
      throw failure(error, at: state, path: cursor.path, control: parent)
    case .joined(let branches, let tally):
      do throws(RunError) {
        try join(
          branches, tally, at: state, original: original, into: &context, path: &cursor.path)
      } catch {
        // A merge or the report threw: the dispatch is retried from before it.
        context = original
        ends?.keepJoin(of: state, flow: parentFlow, branches: branches, tally: tally)
        throw error
      }
      if let ends, tally.successes < branches.count {
        ends.reportOutcomes(of: state, flow: parentFlow, branches: branches, tally: tally)
      }
      if let monitor = control.monitor { monitor.dispatchJoined(state, flow: parentFlow) }
    }
  }

  /// Runs a limited dispatch's branches in `plan.maxConcurrency` worker tasks, each taking
  /// the next branch in declaration order as it finishes one: a dispatch of any size makes
  /// no more tasks than its limit, and the dispatching task is not woken once per branch.
  ///
  /// For a dispatch whose branches wait for none, in a run nobody observes and not retried
  /// (the others take the general path in ``runDispatch(_:at:cursor:context:control:resuming:)``).
  /// The workers apply the join policy as the dispatching task would: the first outcome that
  /// decides the dispatch (the quorum met, or a failure beyond the tolerance or in a
  /// cancelled run) claims the decision and raises `control`, so no branch starts after it
  /// and those under way stop at their next boundary; what they report then is dropped.
  @inlinable
  func runBranchesInWorkers(
    _ plan: DispatchPlan, original: Context, control: RunControl, parent: RunControl
  ) async -> DispatchOutcome<Context> {
    let count = plan.branchStarts.count
    let claims = BranchClaims()
    let interpreter = self
    let works = await withTaskGroup(of: BranchWork<Context>.self) { group in
      for _ in 0..<plan.maxConcurrency {
        group.addTask {
          var work = BranchWork<Context>()
          while !control.isCancelled {
            let index = claims.next.wrappingAdd(1, ordering: .relaxed).oldValue
            guard index < count else { break }
            var context = original
            var branch = Cursor<Context>(
              at: plan.branchStarts[index], stepLimit: interpreter.stepLimit)
            do throws(RunError) {
              _ = try await interpreter.run(cursor: &branch, context: &context, control: control)
              let successes = claims.successes.wrappingAdd(1, ordering: .relaxed).newValue
              // After the quorum, a success is dropped, as the dispatching task would.
              guard successes <= plan.quorum else { continue }
              work.finished.append(
                (index, FinishedBranch(context: context, path: branch.path.finish())))
              if successes == plan.quorum, successes < count, claims.decide() {
                control.cancel()
                work.metQuorum = true
                return work
              }
            } catch {
              guard !claims.isDecided else { continue }
              let failures = claims.failures.wrappingAdd(1, ordering: .relaxed).newValue
              if failures > plan.tolerance || parent.isCancelled || Task.isCancelled
                || isScriptProblem(error)
              {
                if claims.decide() {
                  control.cancel()
                  work.fatal = error
                }
                return work
              }
              work.failed.append((index, error))
            }
          }
          return work
        }
      }
      var works: [BranchWork<Context>] = []
      works.reserveCapacity(plan.maxConcurrency)
      for await work in group {
        // The worker that decided the dispatch returned: the others' branches are
        // cancelled, so that one awaiting something long stops too.
        if work.fatal != nil || work.metQuorum { group.cancelAll() }
        works.append(work)
      }
      return works
    }
    var finished = [FinishedBranch<Context>?](repeating: nil, count: count)
    var tally = JoinTally()
    var metQuorum = false
    for work in works {
      if let fatal = work.fatal { return .branchFailed(fatal) }
      for (index, branch) in work.finished { finished[index] = branch }
      tally.successes += work.finished.count
      tally.failures += work.failed.count
      tally.failed += work.failed.map { (index: $0.0, error: $0.1) }
      metQuorum = metQuorum || work.metQuorum
    }
    let started = min(claims.next.load(ordering: .relaxed), count)
    if started < count && !metQuorum {
      // Cancelled before every branch started: the first that did not start stops there.
      return .branchFailed(
        cancellationError(at: plan.branchStarts[started], path: PathRecorder(limit: stepLimit)))
    }
    tally.failed.sort { $0.index < $1.index }
    return .joined(finished, tally)
  }
}
