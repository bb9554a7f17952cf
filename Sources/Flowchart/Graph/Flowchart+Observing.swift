// Observing a scripted chart (see `Flowchart+Scripting.swift`): each state's code wrapped in
// a box of the same kind that tells an observer the state was entered and which exit it took
// or what it decided (FlowchartTesting's coverage, the tool's `--log`), and a dispatch's merge
// wrapped to tell its exit.

extension Flowchart {
  /// A multiple condition's own decision, as a box that returns the position of the exit
  /// taken rather than the state it leads to; `nil` when the state is not a non-final
  /// multiple condition.
  func exitSelector(of index: Int) -> ExitSelector<Context>? {
    guard case .keyed(let decision, _) = graph.records[index].declaration.body
    else { return nil }
    let code = decision.makeSelector(Array(0..<Int32(graph.storedExits(of: index).count)))
    guard let box = code.box else { return nil }
    switch code.kind {
    case .select: return .synchronous(unsafeDowncast(box, to: SelectBox<Context>.self))
    case .asyncSelect: return .asynchronous(unsafeDowncast(box, to: AsyncSelectBox<Context>.self))
    case .pass, .action, .condition, .decideKey, .asyncAction, .asyncCondition, .asyncDecideKey,
      .dispatch, .modified, .callAction, .callCondition:
      return nil
    }
  }

  /// The kind and box that report the state `index`, whose node is `node`, to `observer`
  /// around its code.
  ///
  /// - Precondition: `node` is not a dispatch's.
  func observedCode(
    for index: Int, node: Node,
    _ observer: @escaping @Sendable (StateID, ObservedStep) -> Void
  ) -> (Node.Kind, any AnyObject & Sendable) {
    let id = StateID(index)
    let isFinal = node.isFinal
    let targets = graph.storedExits(of: index).map(\.target)
    let code = node.code
    switch node.kind {
    case .pass:
      return (
        .action,
        ActionBox<Context> { _ in
          observer(id, .entered)
          observer(id, isFinal ? .ended(.done) : .tookExit(0))
        }
      )
    case .action, .callAction:
      let original = box(ActionBox<Context>.self, code)
      return (
        .action,
        ActionBox<Context> { context in
          observer(id, .entered)
          try original.function(&context)
          observer(id, isFinal ? .ended(.done) : .tookExit(0))
        }
      )
    case .asyncAction:
      let original = box(AsyncActionBox<Context>.self, code)
      return (
        .asyncAction,
        AsyncActionBox<Context> { context in
          observer(id, .entered)
          try await original.function(&context)
          observer(id, isFinal ? .ended(.done) : .tookExit(0))
        }
      )
    case .condition, .callCondition:
      let original = box(ConditionBox<Context>.self, code)
      return (
        .condition,
        ConditionBox<Context> { context in
          observer(id, .entered)
          let answer = try original.function(&context)
          observer(id, Self.step(answer, isFinal: isFinal))
          return answer
        }
      )
    case .asyncCondition:
      let original = box(AsyncConditionBox<Context>.self, code)
      return (
        .asyncCondition,
        AsyncConditionBox<Context> { context in
          observer(id, .entered)
          let answer = try await original.function(&context)
          observer(id, Self.step(answer, isFinal: isFinal))
          return answer
        }
      )
    case .select, .asyncSelect:
      // Two exits may lead to the same state, so the exit taken is read from a selector
      // that returns the position of the exit rather than its target.
      switch exitSelector(of: index) {
      case .synchronous(let select):
        return (
          .select,
          SelectBox<Context> { context in
            observer(id, .entered)
            let exit = Int(try select.function(&context))
            observer(id, .tookExit(exit))
            return targets[exit]
          }
        )
      case .asynchronous(let select):
        return (
          .asyncSelect,
          AsyncSelectBox<Context> { context in
            observer(id, .entered)
            let exit = Int(try await select.function(&context))
            observer(id, .tookExit(exit))
            return targets[exit]
          }
        )
      case nil:
        preconditionFailure("a non-final multiple condition has a selector")
      }
    case .decideKey:
      let original = box(DecideKeyBox<Context>.self, code)
      return (
        .decideKey,
        DecideKeyBox<Context> { context in
          observer(id, .entered)
          let key = try original.function(&context)
          observer(id, .ended(.key(key)))
          return key
        }
      )
    case .asyncDecideKey:
      let original = box(AsyncDecideKeyBox<Context>.self, code)
      return (
        .asyncDecideKey,
        AsyncDecideKeyBox<Context> { context in
          observer(id, .entered)
          let key = try await original.function(&context)
          observer(id, .ended(.key(key)))
          return key
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

  /// A merge for the dispatch `index` that folds a branch back as `merge` does (or not at
  /// all, when it is `nil`), then reports the dispatch's exit.
  func observedMerge(
    of index: Int, _ merge: (any AnyObject & Sendable)?,
    _ observer: @escaping @Sendable (StateID, ObservedStep) -> Void
  ) -> MergeBox<Context> {
    let id = StateID(index)
    let step: ObservedStep =
      graph.records[index].isFinal
      ? .ended(.done) : .tookExit(graph.storedExits(of: index).count - 1)
    let original = merge.map { unsafeDowncast($0, to: MergeBox<Context>.self) }
    return MergeBox<Context> { context, branch, before in
      try original?.function(&context, branch, before)
      observer(id, step)
    }
  }
}
