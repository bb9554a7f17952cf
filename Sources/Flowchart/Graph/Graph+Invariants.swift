extension Graph {
  /// Checks what every compiled graph guarantees, so a compiler bug fails loudly in debug
  /// builds instead of misleading a run. Called after every compilation in debug builds.
  func checkInvariants() {
    precondition(nodes.count == records.count, "one record per node")
    precondition(records.indices.contains(Int(start)), "the start is a state")
    precondition(records[Int(start)].flow == 0, "the start is at the top level")
    for (index, node) in nodes.enumerated() {
      let record = records[index]
      precondition(node.isFinal == record.isFinal, "node and record agree on finality")
      for exit in record.exits {
        precondition(records.indices.contains(exit.target.index), "exits lead to states")
        let targetFlow = records[exit.target.index].flow
        if case .branch = exit.label {
          precondition(targetFlow != record.flow, "a branch starts a flow of its own")
        } else {
          precondition(targetFlow == record.flow, "arrows stay inside their flow")
        }
      }
      let hasNext = node.next != Node.none
      switch node.kind {
      case .pass, .action, .asyncAction, .dispatch:
        precondition(hasNext != node.isFinal, "a non-final action or dispatch has a next state")
      case .condition, .asyncCondition:
        let hasAlternative = node.alternative != Node.none
        precondition(hasNext == hasAlternative && hasNext != node.isFinal, "two exits or none")
      case .select, .asyncSelect:
        precondition(!node.isFinal, "a selector belongs to a non-final multiple condition")
      case .decideKey, .asyncDecideKey:
        precondition(node.isFinal, "a final multiple condition reports its key")
      }
      switch node.kind {
      case .pass, .dispatch:
        precondition(node.code == nil, "no code to call")
      case .action, .condition, .select, .decideKey, .asyncAction, .asyncCondition,
        .asyncSelect, .asyncDecideKey:
        precondition(node.code != nil, "code to call")
      }
      if node.kind == .dispatch {
        precondition(dispatches.indices.contains(Int(node.alternative)), "a dispatch has a plan")
      }
    }
  }
}
