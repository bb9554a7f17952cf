extension Graph {
  /// Checks what every compiled graph guarantees, so a compiler bug fails loudly in debug
  /// builds instead of misleading a run. Called after every compilation in debug builds.
  func checkInvariants() {
    precondition(records.indices.contains(Int(start)), "the start is a state")
    precondition(records[Int(start)].flow == 0, "the start is at the top level")
    for (index, outer) in nodes.enumerated() {
      // A modified state's node holds the node the state would have: check that one.
      let node = outer.kind == .modified ? ModifiedCode.of(outer).inner : outer
      let record = records[index]
      precondition(node.isFinal == record.isFinal, "node and record agree on finality")
      for exit in exits(of: index) {
        precondition(records.indices.contains(exit.target.index), "exits lead to states")
        let targetFlow = records[exit.target.index].flow
        if exit.label.branch != nil {
          precondition(targetFlow != record.flow, "a branch starts a flow of its own")
        } else {
          precondition(targetFlow == record.flow, "arrows stay inside their flow")
        }
      }
      let hasNext = node.next != Node.none
      switch node.kind.shape {
      case .next:
        precondition(hasNext != node.isFinal, "a non-final action has a next state")
      case .yesNo:
        let hasAlternative = node.alternative != Node.none
        precondition(hasNext == hasAlternative && hasNext != node.isFinal, "two exits or none")
      case .selected:
        precondition(!node.isFinal, "a selector belongs to a non-final multiple condition")
      case .reported:
        precondition(node.isFinal, "a final multiple condition reports its key")
      case .branches:
        precondition(hasNext != node.isFinal, "a non-final dispatch has a next state")
      }
      // Each node's code is the box its kind calls, over this graph's context: the run loop
      // relies on it without checking.
      let box = node.code.map { Unmanaged<AnyObject>.fromOpaque($0).takeUnretainedValue() }
      precondition(node.kind.holds(box, over: Context.self), "the box the node's kind calls")
      if node.kind == .dispatch {
        precondition(dispatches.indices.contains(Int(node.alternative)), "a dispatch has a plan")
        let merge = dispatches[Int(node.alternative)].merge
        precondition(merge == nil || merge is MergeBox<Context>, "a merge box")
      }
      if node.kind == .callAction || node.kind == .callCondition {
        precondition(
          callSites.indices.contains(Int(node.call)), "a subflow run in place has a site")
        let site = callSites[Int(node.call)]
        precondition(
          !site.nodes[Int(site.start)].kind.suspends, "a chart run in place is synchronous")
      }
    }
  }
}
