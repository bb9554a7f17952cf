/// What a live run's events, log and handle show of its chart besides its states' names: its
/// branches' names, and the names of the states its flows are at. Read from the graph, when
/// a reader asks: never on the run's way.
extension LiveRun {
  func branchName(ofDispatch dispatch: Int32, branch: Int) -> String? {
    guard graph.records.indices.contains(Int(dispatch)), branch >= 0, branch <= Int(Int32.max)
    else { return nil }
    return graph.branchName(ofDispatch: dispatch, branch: Int32(branch))
  }

  /// The names of `states`, in order.
  func names(of states: [StateID]) -> [String] {
    states.map { stateName(of: Int32($0.index)) }
  }
}
