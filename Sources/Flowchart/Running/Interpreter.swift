/// Walks a compiled graph: the runtime behind ``Flowchart/run(with:stepLimit:isolation:)`` and
/// ``Flowchart/runSynchronously(with:stepLimit:)``.
///
/// ## The shape of a run
///
/// Each flow of a run (the top-level flow, and each dispatch branch) has a ``Cursor``: the
/// state it is at, the states it entered, and in a synchronous run the dispatches waiting
/// for its branches. Flows that stop together share a ``RunControl``, whose flags the loops
/// read in one atomic load at each state boundary. The loops below only move cursors:
///
/// - ``runSynchronousStates(cursor:context:control:reporting:)`` runs consecutive synchronous
///   states in one tight loop, with no suspension, no allocation and no retain per step:
///   the fast path;
/// - ``run(cursor:context:control:)``, the asynchronous loop, hands it each stretch of
///   synchronous states and runs asynchronous states and dispatches itself;
/// - ``runSynchronously(cursor:context:)`` runs a synchronous chart without suspending,
///   dispatches included, keeping the dispatches it is inside on the cursor's stack of
///   pending joins rather than in the call stack.
///
/// Each kind of state runs in exactly one place: synchronous kinds in
/// ``runSynchronousStates(cursor:context:control:reporting:)``, asynchronous kinds in
/// ``run(cursor:context:control:)``, a dispatch in ``runDispatch(_:at:cursor:context:control:)``
/// or, synchronously, on the cursor's stack of pending joins. The `switch`es over
/// ``Node/Kind`` list every kind, with no `default:`, so a new kind must be placed in each.
/// Every step ends in ``Cursor/follow(_:from:)``, the one transition rule, and a dispatch's
/// join (``join(_:_:at:original:into:path:)``) is written once for both kinds of run.
///
/// Every boundary goes through ``enter(_:path:flow:control:)``, and every flow's end through
/// ``endFlow(at:path:control:)``. A capability that acts at boundaries is added there, not
/// as a second interpreter: a pause raises a ``RunControl`` flag and waits in the slow path
/// of `enter`, with the cursor (and the context) as the position to resume from; an
/// observer is told the cursor there; a snapshot of a run is its flows' cursors and
/// contexts (in a synchronous run, one cursor whose pending joins hold the branches that
/// have ended; in an asynchronous run, one cursor per running branch task).
///
/// Following an arrow is an assignment to the cursor, never a call, so long and cyclic
/// runs do not grow the stack.
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

  // MARK: - Synchronous states

  /// Runs synchronous states from the cursor's state until the flow ends or reaches a
  /// state that needs another loop (an asynchronous state or a dispatch, not yet entered).
  ///
  /// - Returns: The decision that ended the flow at the cursor's state, or `nil` when the
  ///   cursor is at a state this loop does not run.
  ///
  /// `Reporting` says whether the loop reports decisions to a live run's monitor: a run
  /// nobody observes uses ``Unreported``, whose specialization has no trace of it, so the
  /// fast path pays nothing for observation (not even a test per state).
  ///
  /// A subflow whose chart can share this loop (see ``CallSite``) runs in place, unless the
  /// loop reports to a live run (see ``visitInPlace(_:path:context:)``).
  // Specialized for the caller's context, but not inlined: the asynchronous loop would copy
  // it into each of its resumption points.
  @inlinable @inline(never)
  func runSynchronousStates<Reporting: BoundaryReporting>(
    cursor: inout Cursor<Context>, context: inout Context, control: RunControl,
    reporting: Reporting.Type
  ) throws(RunError) -> Decision? {
    let nodes = graph.nodeBase
    // The path of each visit of a subflow run in place, its ring reused from visit to
    // visit. (No allocation here: the ring comes with the first visit.)
    var visitPath = PathRecorder(limit: 0)
    while true {
      let state = cursor.state
      let kind = nodes[Int(state)].kind
      if kind.suspends { return nil }
      if Reporting.isOn {
        // Paused: the asynchronous loop waits, then comes back here.
        guard try enter(state, path: &cursor.path, flow: cursor.flow, control: control) else {
          return nil
        }
      } else if Reporting.readsFlags {
        try enterUnobserved(state, path: &cursor.path, control: control)
      } else {
        try enterUncontrolled(state, path: &cursor.path, asksTask: Reporting.asksTaskAtStart)
      }
      let outcome: Outcome
      // A live run keeps the context from before the state: a failed state is retried from it.
      let before: Context? = Reporting.isOn ? context : nil
      do {
        switch kind {
        case .pass:
          outcome = .next
        case .action:
          try nodes[Int(state)].perform(&context)
          outcome = .next
        case .condition:
          outcome = try nodes[Int(state)].decide(&context) ? .yes : .no
        case .select:
          outcome = .selected(try nodes[Int(state)].select(&context))
        case .decideKey:
          let key = try nodes[Int(state)].decideKey(&context)
          if Reporting.isOn && control.isObserved {
            control.monitor.unsafelyUnwrapped.decided(
              state, flow: cursor.flow, key: key, context: context)
          }
          return .key(key)
        case .callAction, .callCondition:
          if Reporting.isOn {
            // Nested: the subflow's box runs its chart as a run of its own.
            if kind == .callAction {
              try nodes[Int(state)].perform(&context)
              outcome = .next
            } else {
              outcome = try nodes[Int(state)].decide(&context) ? .yes : .no
            }
          } else {
            outcome = try visitInPlace(state, path: &visitPath, context: &context)
          }
        case .asyncAction, .asyncCondition, .asyncSelect, .asyncDecideKey, .dispatch, .modified:
          preconditionFailure("asynchronous states and dispatches return before they are entered")
        }
      } catch {
        if Reporting.isOn, let before { context = before }
        throw failure(error, at: state, path: cursor.path, control: control)
      }
      if Reporting.isOn && control.isObserved {
        control.monitor.unsafelyUnwrapped.decided(
          state, flow: cursor.flow, outcome: outcome, context: context)
      }
      // Read after the call, so that nothing but the cursor lives across it.
      if cursor.follow(outcome, from: nodes[Int(state)]) { return outcome.decision }
    }
  }

  /// Runs the chart of the subflow at `state` in place (see ``CallSite``) and returns the
  /// subflow's outcome: what the subflow's box does with a nested run, without making one.
  ///
  /// The chart's states run here, on the context itself, in a loop of their own within
  /// the outer flow's loop: no run, no cursor, no call beyond the states' code, and `path`
  /// (its ring reused from visit to visit) records the visit. The boundaries are those of
  /// a nested run (``Nested``): they ask the task whether it was cancelled at the
  /// checkpoints of the visit's path after its first state, and when a state throws. A
  /// failure is the error the nested run would throw, made in the subflow's chart (the
  /// outer loop makes it the subflow's); a subflow in the chart runs nested, through its
  /// box.
  ///
  /// Out of the outer loop (the optimizer would otherwise give the outer loop's registers
  /// to this one's), at the cost of one call a visit.
  @inlinable @inline(never)
  func visitInPlace(
    _ state: Int32, path: inout PathRecorder, context: inout Context
  ) throws -> Outcome {
    let site = graph.callSites[Int(graph.nodeBase[Int(state)].call)]
    let nodes = site.nodes
    var inner = site.start
    path.restart(limit: site.limit)
    while true {
      // Only the kind is read before the state's code runs, the node after: nothing but
      // `inner` and the pointers lives across the call.
      let kind = nodes[Int(inner)].kind
      if _slowPath(path.isAtCheckpoint) {
        try enterInPlace(inner, path: &path, caller: state)
      } else {
        path.recordBeforeCheckpoint(inner)
      }
      if _slowPath(kind == .decideKey) {
        // The chart ends deciding a key: an action takes it as done, a condition fails.
        let key: any Hashable & Sendable
        do {
          key = try nodes[Int(inner)].decideKey(&context)
        } catch {
          throw failureInPlace(error, at: inner, path: path, caller: state)
        }
        guard graph.nodeBase[Int(state)].kind == .callCondition else { return .next }
        throw withoutYesOrNo(.key(key), at: inner, caller: state)
      }
      let outcome: Outcome
      do {
        switch kind {
        case .pass:
          outcome = .next
        case .action, .callAction:
          try nodes[Int(inner)].perform(&context)
          outcome = .next
        case .condition, .callCondition:
          outcome = try nodes[Int(inner)].decide(&context) ? .yes : .no
        case .select:
          outcome = .selected(try nodes[Int(inner)].select(&context))
        case .decideKey, .asyncAction, .asyncCondition, .asyncSelect, .asyncDecideKey, .dispatch,
          .modified:
          preconditionFailure("a chart run in place has only synchronous states (CallSite)")
        }
      } catch {
        throw failureInPlace(error, at: inner, path: path, caller: state)
      }
      let final = inner
      if outcome.follow(from: nodes[Int(inner)], state: &inner) {
        guard graph.nodeBase[Int(state)].kind == .callCondition else { return .next }
        switch outcome {
        case .yes: return .yes
        case .no: return .no
        case .next, .selected: throw withoutYesOrNo(.done, at: final, caller: state)
        }
      }
    }
  }

  /// The boundary before `state` of a subflow's chart run in place, at a checkpoint of its
  /// path: ``enterAtCheckpoint(_:path:)`` in the subflow's chart, whose failure (a
  /// cancellation, the subflow's step limit) names the chart's states.
  ///
  /// A visit of more than one state comes here at its second state, so the subflow's chart
  /// (two dynamic casts away) is looked up only to word a failure.
  @usableFromInline @inline(never)
  func enterInPlace(_ state: Int32, path: inout PathRecorder, caller: Int32) throws(RunError) {
    if !Task.isCancelled, path.recordSlowly(state) { return }
    try Interpreter(graph: inPlaceGraph(of: caller), stepLimit: path.limit)
      .enterAtCheckpoint(state, path: &path)
  }

  /// The error of a subflow's chart run in place whose state `state` threw `thrown`: the
  /// error its nested run would throw, made in its chart.
  @usableFromInline @inline(never)
  func failureInPlace(
    _ thrown: any Error, at state: Int32, path: borrowing PathRecorder, caller: Int32
  ) -> RunError {
    Interpreter(graph: inPlaceGraph(of: caller), stepLimit: path.limit)
      .failure(thrown, at: state, path: path, control: .inert)
  }

  /// What a subflow used as a condition throws when its chart, run in place, ended at
  /// `state` with a decision other than yes or no.
  @usableFromInline @inline(never)
  func withoutYesOrNo(
    _ decision: Decision, at state: Int32, caller: Int32
  ) -> SubflowWithoutYesOrNo {
    let final = inPlaceGraph(of: caller).records[Int(state)]
    return SubflowWithoutYesOrNo(finalState: final.name, kind: final.kind, decision: decision)
  }

  /// The chart of the subflow at `caller`, which the loop runs in place.
  @usableFromInline
  func inPlaceGraph(of caller: Int32) -> Graph<Context> {
    guard let subflow = graph.records[Int(caller)].attachment as? any InPlaceSubflow,
      let inner = subflow.graph(over: Context.self)
    else { preconditionFailure("a state run in place is a subflow over the same context") }
    return inner
  }

  // MARK: - Asynchronous flows

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
            before: cursor.state, path: cursor.path, flow: cursor.flow, control: control)
          continue
        }
      }
      let state = cursor.state
      while !(try enter(state, path: &cursor.path, flow: cursor.flow, control: control)) {
        try await waitWhilePaused(
          before: state, path: cursor.path, flow: cursor.flow, control: control)
      }
      let outcome: Outcome
      switch node.kind {
      case .asyncAction, .asyncCondition, .asyncSelect:
        if _slowPath(node.waitsForInput), control.flags.contains(.parks),
          control.monitor.unsafelyUnwrapped.parks(at: state, flow: cursor.flow)
        {
          // A waiting state with no value yet: the task unwinds, and the live run keeps
          // the cursor and the context until a value or a cancellation comes.
          throw RunError.parking
        }
        outcome = try await runAsynchronous(
          node, at: state, cursor: &cursor, context: &context, control: control)
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
      if _slowPath(control.isObserved) {
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
      switch node.kind {
      case .asyncAction:
        try await node.perform(&context)
        return .next
      case .asyncCondition:
        return try await node.decide(&context) ? .yes : .no
      case .asyncSelect:
        return .selected(try await node.select(&context))
      case .pass, .action, .condition, .select, .decideKey, .asyncDecideKey, .dispatch,
        .modified, .callAction, .callCondition:
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
    let key: any Hashable & Sendable
    let before: Context? = _slowPath(control.isObserved) ? context : nil
    do {
      key = try await node.decideKey(&context)
    } catch {
      if let before { context = before }
      throw failure(error, at: state, path: cursor.path, control: control)
    }
    if _slowPath(control.isObserved) {
      control.monitor.unsafelyUnwrapped.decided(
        state, flow: cursor.flow, key: key, context: context)
    }
    try endFlow(at: state, path: cursor.path, control: control)
    return .key(key)
  }

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
    do throws(RunError) {
      _ = try await run(cursor: &branch, context: &branchContext, control: control)
    } catch {
      ends?.failed(index, flow: branch.flow)
      return BranchOutcome(index: index, result: .failure(error))
    }
    return branchEnded(
      index, of: state, branch: branch, context: branchContext, control: control, ends: ends)
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
    do throws(RunError) {
      _ = try await resume(point, cursor: &branch, context: &branchContext, control: control)
    } catch {
      ends?.failed(index, flow: branch.flow)
      return BranchOutcome(index: index, result: .failure(error))
    }
    return branchEnded(
      index, of: state, branch: branch, context: branchContext, control: control, ends: ends)
  }

  /// How a branch that ended at a final state ends: reported, recorded for a retry.
  @inlinable
  func branchEnded(
    _ index: Int, of state: Int32, branch: consuming Cursor<Context>, context: Context,
    control: RunControl, ends: BranchEnds<Context>?
  ) -> BranchOutcome<Context> {
    if let monitor = control.monitor {
      monitor.branchEnded(index, of: state, flow: branch.flow)
    }
    let done = FinishedBranch(context: context, path: branch.path.finish())
    ends?.finished(index, done)
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
      control.monitor == nil ? nil : branchEnds(of: control, count: plan.branchStarts.count)
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
      return await withTaskGroup(of: BranchOutcome<Context>.self) { group in
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
        /// Starts the branches that may start now; returns a merge's error, if one threw.
        func startReady() -> (any Error)? {
          while running < plan.maxConcurrency,
            let index = schedule.nextReady(prerequisites, finished: finished)
          {
            var branchContext = original
            if !plan.prerequisites.isEmpty {
              do {
                try plan.mergePrerequisites(
                  of: index, finished: finished, original: original, into: &branchContext)
              } catch {
                return error
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
          return nil
        }
        if let mergeError = startReady() {
          control.cancel()
          group.cancelAll()
          return DispatchOutcome<Context>.mergeFailed(mergeError)
        }
        while let outcome = await group.next() {
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
            // tolerates none.
            if tally.failures > plan.tolerance || parent.isCancelled || Task.isCancelled {
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
          if let mergeError = startReady() {
            control.cancel()
            group.cancelAll()
            return .mergeFailed(mergeError)
          }
        }
        return .joined(finished, tally)
      }
    } onCancel: {
      control.cancel()
    }
    if let monitor = control.monitor { monitor.unregister(control) }
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
              if failures > plan.tolerance || parent.isCancelled || Task.isCancelled {
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

  // MARK: - Synchronous flows

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
        guard cursor.joins[top].tally.failures <= plan.tolerance, !Task.isCancelled else {
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

  // MARK: - Boundaries

  /// The boundary before `state`: reads the control's flags, checks the step limit, then
  /// records `state` as entered.
  ///
  /// - Returns: `false`, with nothing recorded, when the run is paused: the caller waits
  ///   (the asynchronous loop) or hands the boundary to the loop that can (the synchronous
  ///   one), then comes back. `true` once `state` is entered.
  @inlinable @inline(__always)
  func enter(
    _ state: Int32, path: inout PathRecorder, flow: Int32, control: RunControl
  ) throws(RunError) -> Bool {
    let flags = control.flags
    if _slowPath(flags.rawValue != 0) {
      guard try enterWithFlags(flags, state, path: path, flow: flow, control: control) else {
        return false
      }
    }
    if _slowPath(path.isAtCheckpoint) {
      try enterAtCheckpoint(state, path: &path)
    } else {
      path.recordBeforeCheckpoint(state)
    }
    return true
  }

  /// ``enter(_:path:flow:control:)`` for a run nobody observes, whose only flag is
  /// ``RunControl/Flags/cancelled``: nothing to return, so the fast path tests nothing more.
  @inlinable @inline(__always)
  func enterUnobserved(
    _ state: Int32, path: inout PathRecorder, control: RunControl
  ) throws(RunError) {
    if _slowPath(control.flags.rawValue != 0) {
      throw cancellationError(at: state, path: path)
    }
    if _slowPath(path.isAtCheckpoint) {
      try enterAtCheckpoint(state, path: &path)
    } else {
      path.recordBeforeCheckpoint(state)
    }
  }

  /// ``enter(_:path:flow:control:)`` for a synchronous run, whose control is
  /// ``RunControl/inert``: nothing raises its flags, so the boundary reads none and only
  /// records the state (a synchronous run asks its task at the path's checkpoints).
  ///
  /// `asksTask` is `false` for a nested run (see ``Nested``), which does not ask its task at
  /// its first state: the outer run's boundaries do.
  @inlinable @inline(__always)
  func enterUncontrolled(
    _ state: Int32, path: inout PathRecorder, asksTask: Bool = true
  ) throws(RunError) {
    if _slowPath(path.isAtCheckpoint) {
      if asksTask || path.count != 0 {
        try enterAtCheckpoint(state, path: &path)
      } else if !path.recordSlowly(state) {
        throw stepLimitError(at: state, path: path)
      }
    } else {
      path.recordBeforeCheckpoint(state)
    }
  }

  /// The boundary before `state` when a flag is raised: a cancelled run stops, a paused
  /// one waits (the caller does), an observed one reports the state.
  @usableFromInline @inline(never)
  func enterWithFlags(
    _ flags: RunControl.Flags, _ state: Int32, path: borrowing PathRecorder, flow: Int32,
    control: RunControl
  ) throws(RunError) -> Bool {
    if flags.contains(.cancelled) { throw cancellationError(at: state, path: path) }
    if flags.contains(.paused) { return false }
    control.monitor?.entered(state, flow: flow)
    return true
  }

  /// Waits at the boundary before `state` while the run is paused; a cancelled task stops
  /// waiting, and the run stops there.
  @usableFromInline
  func waitWhilePaused(
    before state: Int32, path: borrowing PathRecorder, flow: Int32, control: RunControl
  ) async throws(RunError) {
    await control.monitor?.waitWhilePaused(before: state, flow: flow)
    if control.isCancelled || Task.isCancelled {
      throw cancellationError(at: state, path: path)
    }
  }

  /// The boundary before `state` when the path recorder is at a checkpoint: when the flow
  /// starts, while its path's ring grows, at its step limit, and every
  /// ``PathRecorder/checkInterval`` states after that.
  ///
  /// A synchronous run has no cancellation handler to raise its control, so it asks its
  /// task here: a cancelled synchronous run stops within that many states.
  @usableFromInline @inline(never)
  func enterAtCheckpoint(_ state: Int32, path: inout PathRecorder) throws(RunError) {
    if Task.isCancelled {
      throw cancellationError(at: state, path: path)
    }
    if !path.recordSlowly(state) {
      throw stepLimitError(at: state, path: path)
    }
  }

  /// The boundary after a flow's final state: a run whose task was cancelled while its last
  /// state ran ends cancelled, even though the state returned.
  @inlinable @inline(__always)
  func endFlow(at state: Int32, path: borrowing PathRecorder, control: RunControl) throws(RunError)
  {
    if _slowPath(control.isCancelled || Task.isCancelled) {
      throw cancelledAfterFinalError(at: state, path: path)
    }
  }

  @usableFromInline
  func cancelledAfterFinalError(at state: Int32, path: borrowing PathRecorder) -> RunError {
    error(
      .cancelled, at: state, path: path,
      reason: "The run was cancelled while in \(describe(state)), which then finished.")
  }

  /// Joins a dispatch's branches that succeeded (the others are `nil`), in declaration
  /// order: their paths count toward the dispatching flow's, then `merge` folds each
  /// branch's context in, then the report, if any, is told how every branch ended. The
  /// same for both kinds of run.
  @usableFromInline
  func join(
    _ branches: [FinishedBranch<Context>?], _ tally: JoinTally, at state: Int32,
    original: Context, into context: inout Context, path: inout PathRecorder
  ) throws(RunError) {
    let plan = graph.dispatches[Int(graph.nodeBase[Int(state)].alternative)]
    // The report's errors start where the dispatching flow started.
    let prefix = plan.report == nil || tally.failed.isEmpty ? [] : path.states
    for case let branch? in branches { path.append(branch.path) }
    if path.isPastLimit {
      throw error(
        .stepLimitExceeded, at: state, path: path,
        reason:
          "The run exceeded its step limit of \(counted(stepLimit, "state")) when the branches of \(describe(state)) joined: with them it entered \(counted(path.count, "state")). Raise the limit, or shorten the branches."
      )
    }
    for case let branch? in branches {
      do {
        try plan.merge(branch.context, original: original, into: &context)
      } catch {
        throw failure(error, at: state, path: path, control: .inert)
      }
    }
    guard let box = plan.report else { return }
    let report = report(of: state, branches: branches, tally: tally, prefix: prefix)
    do {
      try unsafeDowncast(box, to: ReportBox<Context>.self).function(&context, report)
    } catch {
      throw failure(error, at: state, path: path, control: .inert)
    }
  }

  /// How each branch of the dispatch `state` ended, for its report.
  @usableFromInline
  func report(
    of state: Int32, branches: [FinishedBranch<Context>?], tally: JoinTally, prefix: [Int32]
  ) -> DispatchReport {
    let entries = branches.indices.map { index in
      let name = graph.branchName(ofDispatch: state, branch: Int32(index))
      if branches[index] != nil {
        return DispatchReport.Entry(index: index, name: name, status: .succeeded, error: nil)
      }
      if let failed = tally.failed.first(where: { $0.index == index }) {
        return DispatchReport.Entry(
          index: index, name: name, status: .failed,
          error: branchFailure(failed.error, after: [prefix], cancelled: false))
      }
      let status: DispatchReport.Status =
        tally.skipped.contains(index) ? .skipped : .cancelled
      return DispatchReport.Entry(index: index, name: name, status: status, error: nil)
    }
    return DispatchReport(
      dispatch: StateID(state), dispatchName: graph.records[Int(state)].name, branches: entries)
  }

  // MARK: - Errors

  @usableFromInline
  func stepLimitError(at state: Int32, path: borrowing PathRecorder) -> RunError {
    error(
      .stepLimitExceeded, at: state, path: path,
      reason:
        "The run exceeded its step limit of \(counted(stepLimit, "state")) before entering \(describe(state)). A cycle may never reach a final state, or the limit may be too low."
    )
  }

  @usableFromInline
  func cancellationError(at state: Int32, path: borrowing PathRecorder) -> RunError {
    error(
      .cancelled, at: state, path: path,
      reason: "The run was cancelled before entering \(describe(state)).")
  }

  /// A branch's error, with the paths of the flows that dispatched it before its own,
  /// outermost first, keeping only the most recent ``RunResult/pathCapacity`` states.
  ///
  /// `cancelled` says whether the dispatching flow was cancelled; a branch failure that
  /// is not a cancellation then becomes one, its cause kept.
  @usableFromInline
  func branchFailure(_ error: RunError, after prefixes: [[Int32]], cancelled: Bool) -> RunError {
    let capacity = RunResult<Context>.pathCapacity
    var states: [Int32] = []
    var needed = capacity - error.path.count
    for prefix in prefixes.reversed() where needed > 0 {
      states.insert(contentsOf: prefix.suffix(needed), at: 0)
      needed -= min(needed, prefix.count)
    }
    let prefix = states.map(StateID.init)
    var joined = error.prefixed(
      by: prefix, names: states.map { graph.records[Int($0)].name }, capacity: capacity)
    if cancelled && joined.kind != .cancelled {
      joined = joined.cancelled(
        reason: "The run was cancelled while its branches ran. \(joined.reason)")
    }
    return joined
  }

  /// The run error for an error thrown by a state's code (or a merge). A run whose task
  /// was cancelled ends cancelled, whatever the state threw; the thrown error is kept.
  @usableFromInline
  func failure(
    _ thrown: any Error, at state: Int32, path: borrowing PathRecorder, control: RunControl
  ) -> RunError {
    let cancelled = control.isCancelled || Task.isCancelled
    if let unmatched = thrown as? UnmatchedKey {
      let reason =
        "\(describe(state).capitalizedFirst) decided the key \(DisplayText.quoted(key: unmatched.key)), which has no exit. Add a Case for it, or a Default."
      return error(
        cancelled ? .cancelled : .unmatchedKey, at: state, path: path,
        unmatchedKey: unmatched.key,
        reason: cancelled ? "The run was cancelled while in \(describe(state)). \(reason)" : reason)
    }
    if cancelled {
      let then =
        thrown is CancellationError ? "" : ", which then threw \(String(reflecting: thrown))"
      return error(
        .cancelled, at: state, path: path, underlyingError: thrown,
        reason: "The run was cancelled while in \(describe(state))\(then).")
    }
    if let inner = thrown as? RunError {
      // A subflow's chart failed: the inner error's kind, and its story, inside this one's.
      return error(
        inner.kind, at: state, path: path, underlyingError: inner,
        unmatchedKey: inner.unmatchedKey,
        reason:
          "The run stopped at \(describe(state)), whose chart failed: \(inner.reason) (Path in the subflow: \(Self.route(of: inner)).)"
      )
    }
    if let failure = thrown as? MapElementFailure {
      let inner = failure.error
      return error(
        inner.kind, at: state, path: path, underlyingError: inner,
        unmatchedKey: inner.unmatchedKey,
        reason:
          "The run stopped at \(describe(state)): the run for element \(failure.index) (of \(failure.elementCount), counted from 0) failed: \(inner.reason) (Path in that run: \(Self.route(of: inner)).)"
      )
    }
    if let problem = thrown as? SubflowWithoutYesOrNo {
      return error(
        .thrown, at: state, path: path, underlyingError: thrown,
        reason: "The run stopped at \(describe(state)): \(problem)")
    }
    return error(
      .thrown, at: state, path: path, underlyingError: thrown,
      reason: "The run stopped at \(describe(state)): it threw \(String(reflecting: thrown)).")
  }

  /// The names of an inner run's path, as a message shows them.
  private static func route(of inner: RunError) -> String {
    let route = inner.pathNames.map(DisplayText.name).joined(separator: " → ")
    return route.isEmpty ? "(no state entered)" : route
  }

  @usableFromInline
  func asynchronousStateError(_ state: Int32, path: borrowing PathRecorder) -> RunError {
    if let waiting = waitingModifiersError(state, path: path) { return waiting }
    return error(
      .asynchronousState, at: state, path: path,
      reason:
        "\(describe(state).capitalizedFirst) is asynchronous, so the chart cannot run synchronously. Use `try await chart.run(with:)`, or make the state's code synchronous."
    )
  }

  @usableFromInline
  func error(
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
    return "\(record.kind) \(DisplayText.quoted(name: record.name)) (\(record.location))"
  }
}

extension String {
  var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}

/// Whether a specialization of the synchronous loop reports to a live run's monitor, and
/// whether it reads its control's flags at all: constants, so the unreported
/// specializations have no code for reporting, and the uncontrolled one no flags load.
@usableFromInline
protocol BoundaryReporting {
  /// Whether the loop reports.
  static var isOn: Bool { get }
  /// Whether the loop reads its control's flags at each boundary.
  static var readsFlags: Bool { get }
  /// Whether a loop that reads no flags asks its task whether it was cancelled before the
  /// flow's first state (as at every checkpoint of its path).
  static var asksTaskAtStart: Bool { get }
}

extension BoundaryReporting {
  @inlinable static var asksTaskAtStart: Bool { true }
}

/// The synchronous loop of `runSynchronously`, whose control (``RunControl/inert``) nothing
/// raises: a boundary reads no flag.
@usableFromInline
enum Uncontrolled: BoundaryReporting {
  @inlinable static var isOn: Bool { false }
  @inlinable static var readsFlags: Bool { false }
}

/// The synchronous loop of an asynchronous run nobody observes: a boundary reads the
/// flags, of which only ``RunControl/Flags/cancelled`` can be raised.
@usableFromInline
enum Unreported: BoundaryReporting {
  @inlinable static var isOn: Bool { false }
  @inlinable static var readsFlags: Bool { true }
}

/// The synchronous loop of a nested run: a synchronous subflow's inner run, or a map's
/// element run inline (``Interpreter/runNested(from:context:control:)``). It is one state of the
/// outer run, whose boundaries read the cancellation: so it does not ask its task before its
/// first state nor after its last, only at the later checkpoints of its path (its second
/// state, and at least every ``PathRecorder/checkInterval`` states) and when a state throws.
@usableFromInline
enum Nested: BoundaryReporting {
  @inlinable static var isOn: Bool { false }
  @inlinable static var readsFlags: Bool { false }
  @inlinable static var asksTaskAtStart: Bool { false }
}

/// The synchronous loop of a live run.
@usableFromInline
enum Reported: BoundaryReporting {
  @inlinable static var isOn: Bool { true }
  @inlinable static var readsFlags: Bool { true }
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

extension DispatchPlan {
  /// Folds the contexts of branch `index`'s prerequisites into `context`, in declaration
  /// order: where the branch starts, in both kinds of run.
  ///
  /// - Precondition: every prerequisite of the branch has finished.
  @inlinable
  func mergePrerequisites<Context: Sendable>(
    of index: Int, finished: [FinishedBranch<Context>?], original: Context,
    into context: inout Context
  ) throws {
    for prerequisite in prerequisites[index] {
      try merge(
        finished[Int(prerequisite)].unsafelyUnwrapped.context, original: original,
        into: &context)
    }
  }
}

/// The counters a limited dispatch's workers share: the next branch to take, the successes
/// and failures so far, and whether an outcome has decided the dispatch.
@usableFromInline
final class BranchClaims: Sendable {
  @usableFromInline let next = AtomicWord<Int>(0)
  @usableFromInline let successes = AtomicWord<Int>(0)
  @usableFromInline let failures = AtomicWord<Int>(0)
  @usableFromInline let decided = AtomicWord<Int>(0)

  @inlinable
  init() {}

  /// Whether an outcome has decided the dispatch.
  @inlinable
  var isDecided: Bool { decided.load(ordering: .relaxed) != 0 }

  /// Claims the decision; `false` when another outcome claimed it first.
  @inlinable
  func decide() -> Bool {
    decided.compareExchange(expected: 0, desired: 1, ordering: .relaxed).exchanged
  }
}

/// What one worker of a limited dispatch did: the branches it finished (kept) and those
/// that failed within the tolerance, with their indices, and the outcome that decided the
/// dispatch, if it claimed it.
@usableFromInline
struct BranchWork<Context: Sendable>: Sendable {
  @usableFromInline var finished: [(Int, FinishedBranch<Context>)] = []
  @usableFromInline var failed: [(Int, RunError)] = []
  /// The failure that decided the dispatch.
  @usableFromInline var fatal: RunError?
  /// Whether this worker's success met the quorum.
  @usableFromInline var metQuorum = false

  @inlinable
  init() {}
}

/// How the branches of a concurrent dispatch ended.
@usableFromInline
enum DispatchOutcome<Context: Sendable> {
  /// The join policy is satisfied: the branches that succeeded, in declaration order, and
  /// how the others ended.
  case joined([FinishedBranch<Context>?], JoinTally)
  /// A branch failed beyond the policy's tolerance: the dispatch's error.
  case branchFailed(RunError)
  /// Merging a branch's prerequisites into its starting context threw.
  case mergeFailed(any Error)
}

/// Which branch of a dispatch starts next: the earliest declared one not yet started whose
/// prerequisites have all ended.
@usableFromInline
struct BranchSchedule {
  /// The first branch not yet started, when no branch has prerequisites and they start in
  /// declaration order; otherwise the first that may still be waiting.
  @usableFromInline var first = 0
  /// Which branches have started; empty when no branch has prerequisites.
  @usableFromInline var started: [Bool]
  @usableFromInline let waitsForOthers: Bool
  @usableFromInline let count: Int

  @inlinable
  init(count: Int, waitsForOthers: Bool) {
    started = waitsForOthers ? [Bool](repeating: false, count: count) : []
    self.waitsForOthers = waitsForOthers
    self.count = count
  }

  /// The next branch to start, marked started, or `nil` when none may start now.
  @inlinable
  mutating func nextReady<Branch>(
    _ prerequisites: [[Int32]], finished: [Branch?]
  ) -> Int? {
    guard waitsForOthers else {
      guard first < count else { return nil }
      defer { first += 1 }
      return first
    }
    while first < count, started[first] { first += 1 }
    var index = first
    while index < count {
      if !started[index], prerequisites[index].allSatisfy({ finished[Int($0)] != nil }) {
        started[index] = true
        return index
      }
      index += 1
    }
    return nil
  }

  /// Marks the branches not yet started that wait for a branch that failed or was skipped
  /// as skipped (and started, so they never start), each counted as a failure.
  ///
  /// - Returns: `false` when the failures then exceed `tolerance`.
  @inlinable
  mutating func skipDependents(
    _ prerequisites: [[Int32]], tally: inout JoinTally, tolerance: Int
  ) -> Bool {
    var changed = true
    while changed {
      changed = false
      for index in first..<count where !started[index] {
        guard prerequisites[index].contains(where: { tally.didNotSucceed(Int($0)) }) else {
          continue
        }
        started[index] = true
        tally.skipped.append(index)
        tally.failures += 1
        if tally.failures > tolerance { return false }
        changed = true
      }
    }
    return true
  }
}
