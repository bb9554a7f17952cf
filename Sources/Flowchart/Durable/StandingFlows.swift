// The barrier rule of a snapshot: when every flow of a run stands, and where (see
// `LiveRun+Snapshot.swift`). One rule for a live run's own flows and for a subflow's or a
// map's inner run (`NestedRun.swift`), each reading its positions from its own tables.

/// Where every flow of a run stands, when they all do: a live run's flows, or a subflow's
/// inner run's (see `NestedRun.swift`), which keep their positions in tables of their own
/// and share this one barrier rule.
enum StandingFlows<Context: Sendable> {
  /// Every flow stands: the flow the walk started from first, each branch after the flow
  /// that dispatched it.
  case stands([CapturedEntry<Context>])
  case moving
  case refused(SnapshotError)

  /// How a flow that runs a waiting state or a delay in its task stands.
  enum Waiting {
    /// It runs none.
    case none
    /// It does, but goes on (its deadline passed, or it waits for nothing yet).
    case moving
    case stands(CapturedFlow<Context>)
  }

  /// Whether flow 0 of a run stands, with the branches of the dispatch it stands in
  /// (recursively), read from the run's tables: the position each flow left at a boundary
  /// (`boundary`), in a waiting state or a delay (`waiting`), in a subflow (`nested`: the
  /// inner run, and the flow's position there), the running dispatch a flow stands in
  /// (`dispatch`), and the flows that run that dispatch's branches, by index (`branches`).
  /// A flow stands at a boundary, waiting, in a subflow whose inner run stands, or in a
  /// dispatch each of whose branches stands, finished, or has not started, at least one
  /// not finished; a dispatch one of whose branches failed (its join policy tolerates it)
  /// refuses the snapshot.
  static func of(
    _ graph: Graph<Context>,
    boundary: (Int32) -> CapturedFlow<Context>?,
    waiting: (Int32) -> Waiting,
    nested: (Int32) -> (run: any StandingSubflow, position: CapturedFlow<Context>)?,
    dispatch: (Int32) -> RunningDispatch<Context>?,
    branches: (_ flow: Int32, _ dispatch: Int32) -> [Int: Int32]
  ) -> StandingFlows {
    var flows: [CapturedEntry<Context>] = []
    var refusal: SnapshotError? = nil
    /// Appends flow `flow` (and its branches) to `flows`; `false` when it does not stand.
    func stand(_ flow: Int32, parent: Int?, branch: Int) -> Bool {
      if let position = boundary(flow) {
        flows.append(CapturedEntry(flow: position, parent: parent, branch: branch))
        return true
      }
      switch waiting(flow) {
      case .stands(let position):
        flows.append(CapturedEntry(flow: position, parent: parent, branch: branch))
        return true
      case .moving: return false
      case .none: break
      }
      if let (run, kept) = nested(flow) {
        // The flow stands in a subflow when its inner run does.
        guard let inner = run.standing() else { return false }
        if let refused = inner as? RefusedInnerRun {
          refusal = refused.error
          return false
        }
        var position = kept
        position.position = .inSubflow(inner)
        flows.append(CapturedEntry(flow: position, parent: parent, branch: branch))
        return true
      }
      guard let dispatch = dispatch(flow) else { return false }
      let ends = dispatch.ends.current
      let name = DisplayText.quoted(name: graph.records[Int(dispatch.state)].name)
      if let failed = ends.failed.firstIndex(of: true) {
        refusal = SnapshotError(
          reason:
            "Branch \(failed + 1) of dispatch \(name) failed, and the dispatch runs on (its join policy tolerates the failure): a snapshot does not hold a branch's error. Take the snapshot once the dispatch has joined."
        )
        return false
      }
      let index = flows.count
      flows.append(
        CapturedEntry(
          flow: CapturedFlow(
            .dispatching, at: dispatch.state, context: dispatch.original,
            path: dispatch.path.states, stepCount: dispatch.path.count,
            stepLimit: dispatch.stepLimit),
          parent: parent, branch: branch))
      let running = branches(flow, dispatch.state)
      var goesOn = false
      for number in ends.finished.indices {
        if let finished = ends.finished[number] {
          let states = finished.path.states
          flows.append(
            CapturedEntry(
              flow: CapturedFlow(
                .finished(ends.decisions[number] ?? .done), at: states.last ?? dispatch.state,
                context: finished.context, path: states, stepCount: finished.path.count,
                stepLimit: dispatch.stepLimit),
              parent: index, branch: number))
        } else if let branchFlow = running[number] {
          guard stand(branchFlow, parent: index, branch: number) else { return false }
          goesOn = true
        } else {
          // Not started yet: it starts on resume as it would have.
          goesOn = true
        }
      }
      // Every branch finished: the dispatch joins, and its flow stands at its next boundary.
      return goesOn
    }
    guard stand(0, parent: nil, branch: 0) else {
      if let refusal { return .refused(refusal) }
      return .moving
    }
    return .stands(flows)
  }
}

/// An inner run that cannot be captured where it stands (a branch of its dispatch failed,
/// and the dispatch runs on): the run's barrier refuses the snapshot with ``error``.
struct RefusedInnerRun: CapturedSubflowRun {
  let error: SnapshotError

  func snapshot() -> NestedSnapshot? { nil }
  /// Never written: the snapshot is refused.
  var entered: SubflowAttempt { .first }
}
