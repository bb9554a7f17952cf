/// The names of the states a live run's flows are at, for its handle. Read from the graph,
/// when a reader asks: never on the run's way.
extension LiveRun {
  /// The names of `states`, in order.
  func names(of states: [StateID]) -> [String] {
    states.map { graph.stateName(of: Int32($0.index)) }
  }
}

/// The graph names what its runs' events stand for: an event an observer, a log or a
/// subscriber gets holds the graph (through ``EventDetails``), not the run, so that keeping
/// events does not keep their run alive.
extension Graph: EventNaming {
  func kind(of record: EventRecord, payload: RunEvent.Kind?) -> RunEvent.Kind {
    switch record.tag {
    case .runStarted: .runStarted
    case .entered: .stateEntered
    case .decidedDone: .stateDecided(.done)
    case .decidedYes: .stateDecided(.yes)
    case .decidedNo: .stateDecided(.no)
    case .decidedExit:
      .stateDecided(
        .key(
          storedExits(of: Int(record.state)).first { $0.target == record.value }
            .map { $0.label.label(keyLabels: keyLabels).description } ?? ""))
    case .dispatchStarted: .dispatchStarted
    case .branchStarted: .branchStarted(Int(record.value))
    case .branchEnded: .branchEnded(Int(record.value))
    case .dispatchJoined: .dispatchJoined
    case .waitingForInput: .waitingForInput
    case .paused: .paused
    case .resumed: .resumed
    case .branchSkipped: .branchSkipped(Int(record.value))
    case .branchCancelled: .branchCancelled(Int(record.value))
    // A record tagged `payload` is always kept with its kind.
    case .payload: payload ?? .runStarted
    }
  }

  func stateName(of state: Int32) -> String {
    records.indices.contains(Int(state)) ? records[Int(state)].name : ""
  }

  func checkedBranchName(ofDispatch dispatch: Int32, branch: Int) -> String? {
    guard records.indices.contains(Int(dispatch)), branch >= 0, branch <= Int(Int32.max)
    else { return nil }
    return branchName(ofDispatch: dispatch, branch: Int32(branch))
  }
}
