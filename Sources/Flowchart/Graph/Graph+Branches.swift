extension Graph {
  /// The name given to branch `branch` of the dispatch `dispatch`, or `nil` when it has
  /// none. Read from the declaration, for printing: never on the hot path.
  func branchName(ofDispatch dispatch: Int32, branch: Int32) -> String? {
    guard case .branches(let branches, _) = records[Int(dispatch)].declaration.body,
      branches.indices.contains(Int(branch))
    else { return nil }
    return branches[Int(branch)].name
  }
}
