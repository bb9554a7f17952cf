// A synchronous subflow's chart run in place of the subflow's state, inside the synchronous
// loop: its own small loop (``Interpreter/visitInPlace(_:path:context:)``, out of line on
// purpose: see ARCHITECTURE.md, "Subflows in place"), and the boundaries and failures of the
// nested run it stands for, made in the subflow's chart.

extension Interpreter {
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
      if _slowPath(path.isAtCheckpoint) {
        try enterInPlace(inner, path: &path, caller: state)
      } else {
        path.recordBeforeCheckpoint(inner)
      }
      // The node is read for the call and after it, never across it: nothing but `inner`
      // and the pointers lives across the call. A subflow in the chart runs nested, through
      // its box (a chart run in place has only synchronous states: see ``CallSite``).
      let result: CodeResult
      do {
        result = try nodes[Int(inner)].callSynchronously(&context)
      } catch {
        throw failureInPlace(error, at: inner, path: path, caller: state)
      }
      let outcome: Outcome
      switch result {
      case .outcome(let decided):
        outcome = decided
      case .key(let decision):
        // The chart ends deciding a key: an action takes it as done, a condition fails.
        guard graph.nodeBase[Int(state)].kind == .callCondition else { return .next }
        throw withoutYesOrNo(decision, at: inner, caller: state)
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
}
