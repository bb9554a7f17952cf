// Pass 4: emit the compiled chart.

extension Compiler {
  /// Fills in each node's exits, makes the multiple conditions' code and plans the
  /// dispatches. Only runs when no problem was found, so every target is resolved.
  mutating func emit(start: Int32, entryPoints: [Int32]) -> CompiledChart {
    for index in states.indices {
      let range = exitRange(of: index)
      switch nodes[index].kind.shape {
      case .next:
        if !range.isEmpty { nodes[index].next = exits[range.lowerBound].target }
      case .yesNo:
        if range.count == 2 {
          nodes[index].next = exits[range.lowerBound].target
          nodes[index].alternative = exits[range.lowerBound + 1].target
        }
      case .selected, .reported, .branches:
        break  // Multiple conditions and dispatches: finished below.
      }
    }
    var dispatches: [DispatchPlan] = []
    // In ID order, so that dispatch plans are numbered in declaration order.
    unfinished.sort { $0.state < $1.state }
    for item in unfinished {
      let index = Int(item.state)
      let range = exitRange(of: index)
      switch item.work {
      case .multipleCondition(let makeSelector, let makeFinalDecision):
        let code =
          states[index].isFinal ? makeFinalDecision() : makeSelector(exits[range].map(\.target))
        var node = nodes[index]
        attach(code, to: &node)
        nodes[index] = node
      case .dispatch(let behavior, let prerequisites, let order):
        let branchStarts = range.filter(isBranch).map { exits[$0].target }
        nodes[index].alternative = Int32(dispatches.count)
        let (tolerance, quorum) = (behavior?.join ?? .all).limits(branchCount: branchStarts.count)
        dispatches.append(
          DispatchPlan(
            branchStarts: branchStarts, merge: behavior?.merge, prerequisites: prerequisites,
            order: order, maxConcurrency: behavior?.maxConcurrency ?? .max,
            tolerance: tolerance, quorum: quorum, report: behavior?.report))
        if !states[index].isFinal, let last = range.last { nodes[index].next = exits[last].target }
      }
    }
    if !modifiedStates.isEmpty { attachModifiers() }
    asynchronousStates.sort()
    return CompiledChart(
      declarations: declarations, nodes: nodes, codeBoxes: codeBoxes, dispatches: dispatches,
      subflowStates: subflowStates, records: records, exits: exits, keyLabels: keyLabels,
      start: start, entryPoints: entryPoints, asynchronousStates: asynchronousStates)
  }

  /// Points `node` at `code`'s box, which the chart keeps alive.
  private mutating func attach(_ code: DeclaredCode, to node: inout Node) {
    node.kind = code.kind
    guard let box = code.box else { return }
    node.code = UnsafeRawPointer(Unmanaged.passUnretained(box).toOpaque())
    codeBoxes.append(box)
  }
}
