// The synchronous loop: consecutive synchronous states in one tight loop, with no
// suspension, no allocation and no retain per step (the fast path). Every run's
// synchronous states run here: a synchronous run's (``Uncontrolled``), the stretches an
// asynchronous run hands it (``Unreported``, or ``Reported`` in a live run) and a nested
// run's (``Nested``); the specializations are chosen by `BoundaryReporting.swift`. A state's
// code is called through ``Node/callSynchronously(_:)``; a subflow that runs in place goes to
// `Interpreter+InPlace.swift`.

extension Interpreter {
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
      let result: CodeResult
      // A live run keeps the context from before the state: a failed state is retried from it.
      let before: Context? = Reporting.isOn ? context : nil
      do {
        // In a live run, a subflow's box runs its chart as a run of its own (nested).
        result = try nodes[Int(state)].callSynchronously(&context, inPlace: !Reporting.isOn) {
          try visitInPlace(state, path: &visitPath, context: &$0)
        }
      } catch {
        if Reporting.isOn, let before { context = before }
        throw failure(error, at: state, path: cursor.path, control: control)
      }
      let outcome: Outcome
      switch result {
      case .outcome(let decided):
        outcome = decided
      case .key(let decision):
        if Reporting.isOn && control.isObserved {
          control.monitor.unsafelyUnwrapped.decided(
            state, flow: cursor.flow, key: decision.key.unsafelyUnwrapped, context: context)
        }
        return decision
      }
      if Reporting.isOn && control.reportsEvents {
        control.monitor.unsafelyUnwrapped.decided(
          state, flow: cursor.flow, outcome: outcome, context: context)
      }
      // Read after the call, so that nothing but the cursor lives across it.
      if cursor.follow(outcome, from: nodes[Int(state)]) { return outcome.decision }
    }
  }
}
