// Observing a scripted chart (see `Flowchart+Scripting.swift`): each state's code wrapped in
// a box of the same kind that tells an observer the state was entered and which exit it took
// or what it decided (FlowchartTesting's coverage, the tool's `--log`), and a dispatch's merge
// wrapped to tell its exit.

extension Flowchart {
  /// A multiple condition's own decision, as the code of a node that selects the position
  /// of the exit taken rather than the state it leads to; `nil` when the state is not a
  /// non-final multiple condition.
  func exitSelector(of index: Int) -> OriginalCode? {
    guard case .keyed(let decision, _) = graph.records[index].declaration.body
    else { return nil }
    let code = decision.makeSelector(Array(0..<Int32(graph.storedExits(of: index).count)))
    guard let box = code.box else { return nil }
    switch code.kind {
    case .select, .asyncSelect:
      let node = Node(
        kind: code.kind, isFinal: false, next: Node.none, alternative: Node.none,
        code: UnsafeRawPointer(Unmanaged.passUnretained(box).toOpaque()))
      return OriginalCode(node: node, owner: box)
    case .pass, .action, .condition, .decideKey, .asyncAction, .asyncCondition, .asyncDecideKey,
      .dispatch, .modified, .callAction, .callCondition:
      return nil
    }
  }

  /// The kind and box that report the state `index`, whose node is `node`, to `observer`
  /// around its code, which they call through the node's call sites.
  ///
  /// - Precondition: `node` is not a dispatch's.
  func observedCode(
    for index: Int, node: Node,
    _ observer: @escaping @Sendable (StateID, ObservedStep) -> Void
  ) -> (Node.Kind, any AnyObject & Sendable) {
    let id = StateID(index)
    let isFinal = node.isFinal
    let targets = graph.storedExits(of: index).map(\.target)
    let original = OriginalCode(node: node, owner: graph)
    switch node.kind {
    case .pass, .action, .callAction:
      return (
        .action,
        ActionBox<Context> { context in
          observer(id, .entered)
          _ = try original.callSynchronously(&context)
          observer(id, isFinal ? .ended(.done) : .tookExit(0))
        }
      )
    case .asyncAction:
      return (
        .asyncAction,
        AsyncActionBox<Context> { context in
          observer(id, .entered)
          _ = try await original.call(&context)
          observer(id, isFinal ? .ended(.done) : .tookExit(0))
        }
      )
    case .condition, .callCondition:
      return (
        .condition,
        ConditionBox<Context> { context in
          observer(id, .entered)
          let answer = try original.callSynchronously(&context).answer
          observer(id, Self.step(answer, isFinal: isFinal))
          return answer
        }
      )
    case .asyncCondition:
      return (
        .asyncCondition,
        AsyncConditionBox<Context> { context in
          observer(id, .entered)
          let answer = try await original.call(&context).answer
          observer(id, Self.step(answer, isFinal: isFinal))
          return answer
        }
      )
    case .select, .asyncSelect:
      // Two exits may lead to the same state, so the exit taken is read from a selector
      // that returns the position of the exit rather than its target.
      guard let select = exitSelector(of: index) else {
        preconditionFailure("a non-final multiple condition has a selector")
      }
      if !select.node.kind.suspends {
        return (
          .select,
          SelectBox<Context> { context in
            observer(id, .entered)
            let exit = Int(try select.callSynchronously(&context).selected)
            observer(id, .tookExit(exit))
            return targets[exit]
          }
        )
      }
      return (
        .asyncSelect,
        AsyncSelectBox<Context> { context in
          observer(id, .entered)
          let exit = Int(try await select.call(&context).selected)
          observer(id, .tookExit(exit))
          return targets[exit]
        }
      )
    case .decideKey:
      return (
        .decideKey,
        DecideKeyBox<Context> { context in
          observer(id, .entered)
          let decision = try original.callSynchronously(&context).decision
          observer(id, .ended(decision))
          return decision.decidedKey
        }
      )
    case .asyncDecideKey:
      return (
        .asyncDecideKey,
        AsyncDecideKeyBox<Context> { context in
          observer(id, .entered)
          let decision = try await original.call(&context).decision
          observer(id, .ended(decision))
          return decision.decidedKey
        }
      )
    case .dispatch:
      preconditionFailure("a dispatch is observed through its merge")
    case .modified:
      preconditionFailure("a modified state's own node is observed")
    }
  }

  /// The step a condition's answer is.
  static func step(_ answer: Bool, isFinal: Bool) -> ObservedStep {
    isFinal ? .ended(answer ? .yes : .no) : .tookExit(answer ? 0 : 1)
  }

  /// A merge for the dispatch `index` that folds a branch back as `plan`'s merge does (or
  /// not at all, when it has none), through ``DispatchPlan/merge(_:original:into:)``, then
  /// reports the dispatch's exit.
  func observedMerge(
    of index: Int, _ plan: DispatchPlan,
    _ observer: @escaping @Sendable (StateID, ObservedStep) -> Void
  ) -> MergeBox<Context> {
    let id = StateID(index)
    let step: ObservedStep =
      graph.records[index].isFinal
      ? .ended(.done) : .tookExit(graph.storedExits(of: index).count - 1)
    if let whole = plan.wholeMerge(Context.self) {
      return MergeBox<Context>(whole: { context, branches, before in
        try whole(&context, branches, before)
        // Once per branch folded back, as the per-branch merge reports.
        for case _? in branches { observer(id, step) }
      })
    }
    return MergeBox<Context> { context, branch, before in
      try plan.merge(branch, original: before, into: &context)
      observer(id, step)
    }
  }
}
