import Flowchart

/// How a run ended: as the reference predicts it, or as the engine reports it.
enum Outcome: Sendable, CustomStringConvertible {
  case final(state: String, decision: String, walk: Walk, path: [String], stepCount: Int)
  /// A failed run. The reference leaves `state`, `path` and `underlying` `nil` where they
  /// are not deterministic, and they are then not compared.
  case failed(RunError.Kind, state: String?, path: [String]?, underlying: String?)

  /// Whether `actual` is what this expected outcome predicts.
  func admits(_ actual: Outcome) -> Bool {
    switch (self, actual) {
    case (
      .final(let state, let decision, let walk, let path, let count),
      .final(let actualState, let actualDecision, let actualWalk, let actualPath, let actualCount)
    ):
      return state == actualState && decision == actualDecision && walk == actualWalk
        && path == actualPath && count == actualCount
    case (
      .failed(let kind, let state, let path, let underlying),
      .failed(let actualKind, let actualState, let actualPath, let actualUnderlying)
    ):
      return kind == actualKind && (state == nil || state == actualState)
        && (path == nil || path == actualPath)
        && (underlying == nil || underlying == actualUnderlying)
    default:
      return false
    }
  }

  var description: String {
    switch self {
    case .final(let state, let decision, let walk, let path, let stepCount):
      return
        "final \(state) \(decision), \(walk), path \(path.joined(separator: " ")), \(stepCount) steps"
    case .failed(let kind, let state, let path, let underlying):
      var text = "\(kind)"
      if let state { text += " at \(state)" }
      if let underlying { text += " (\(underlying))" }
      if let path { text += ", path \(path.joined(separator: " "))" }
      return text
    }
  }
}

/// The reference interpreter: walks a ``RandomPlan`` directly, by plain recursion, one
/// branch after another, sharing no code with the engine. It is meant to be obviously
/// right; each rule of the contract it follows is written where it applies.
struct ReferenceRun {
  /// The most states a flow may enter.
  let stepLimit: Int

  /// Why a flow stopped before a final state.
  struct Stop: Error {
    var kind: RunError.Kind
    var state: Int?
    var path: [Int]?
    var underlying: String?
  }

  /// The outcome of running `plan` from its top-level state at index `start`.
  static func outcome(of plan: RandomPlan, from start: Int) -> Outcome {
    var run = ReferenceRun(stepLimit: plan.stepLimit ?? .max)
    var walk = Walk()
    var path: [Int] = []
    var count = 0
    let names = { (path: [Int]) in path.suffix(RunResult<Walk>.pathCapacity).map { "S\($0)" } }
    do {
      let end = try run.flow(plan.flow, from: start, walk: &walk, path: &path, count: &count)
      return .final(
        state: "S\(end.state)", decision: end.decision, walk: walk, path: names(path),
        stepCount: count)
    } catch {
      return .failed(
        error.kind, state: error.state.map { "S\($0)" }, path: error.path.map(names),
        underlying: error.underlying)
    }
  }

  /// Runs `flow` from the state at index `start` to one of its final states.
  ///
  /// - Parameters:
  ///   - path: The states this flow entered.
  ///   - count: How many states this flow entered, its branches' included.
  ///   - before: The path of the flows that dispatched this one: a failing branch's error
  ///     path is theirs, then its own.
  mutating func flow(
    _ flow: [RandomPlan.Node], from start: Int, walk: inout Walk, path: inout [Int],
    count: inout Int, before: [Int] = []
  ) throws(Stop) -> (state: Int, decision: String) {
    var index = start
    while true {
      let node = flow[index]
      try enter(node.id, path: &path, count: &count)

      if case .dispatch(let branches, let merge, let tolerates) = node.kind {
        // Each branch runs on a copy of the context as it was at the dispatch, with a step
        // limit of its own. At most one branch of a plan's dispatch can fail (see
        // `RandomPlan.init`), so running them one after another gives the failure a
        // concurrent run reports. A dispatch that tolerates a failure drops the failed
        // branch (its context, path and steps), unless the run was cancelled: a cancelled
        // run tolerates nothing.
        var finished: [(walk: Walk, path: [Int], count: Int)] = []
        for branch in branches {
          var branchWalk = walk
          var branchPath: [Int] = []
          var branchCount = 0
          do throws(Stop) {
            _ = try self.flow(
              branch, from: 0, walk: &branchWalk, path: &branchPath, count: &branchCount,
              before: before + path)
          } catch {
            if tolerates && error.kind != .cancelled { continue }
            throw error
          }
          finished.append((branchWalk, branchPath, branchCount))
        }
        // The join. In declaration order, each branch's states follow the dispatch in the
        // path and count toward this flow's steps, which may take it past its step limit;
        // then the merge folds each branch's context back, in declaration order.
        for branch in finished {
          path += branch.path
          count += branch.count
        }
        if count > stepLimit {
          throw Stop(kind: .stepLimitExceeded)
        }
        if let merge {
          for branch in finished {
            do {
              try Walk.merge(&walk, branch.walk, failsAt: merge.fails ? node.id : nil)
            } catch {
              throw Stop(
                kind: .thrown, state: node.id, underlying: "PlannedFailure(S\(node.id))")
            }
          }
        }
        if node.isFinal { return (node.id, "done") }
        index += 1
        continue
      }

      walk.step(node.id)
      let code = node.code
      // A run whose task was cancelled ends cancelled at the state's boundary, whatever the
      // state then did: returned, threw, or decided a key with no exit.
      if let every = code.cancelsEvery, walk.decider % every == 0 {
        throw Stop(kind: .cancelled)
      }
      if let every = code.failsEvery, walk.decider % every == 0 {
        switch code.failure {
        case .planned:
          throw Stop(
            kind: .thrown, state: node.id, path: before + path,
            underlying: "PlannedFailure(S\(node.id))")
        case .cancellationError:
          // Nobody cancelled the task: an ordinary thrown error.
          throw Stop(
            kind: .thrown, state: node.id, path: before + path, underlying: "CancellationError")
        }
      }

      switch node.kind {
      case .action:
        if node.isFinal { return (node.id, "done") }
        index += 1
      case .condition(let modulus, let yes):
        let decided = walk.decider % modulus == 0
        guard let yes else { return (node.id, decided ? "yes" : "no") }
        guard decided else {
          index += 1
          continue
        }
        switch yes {
        case .goTo(let target): index = target
        case .final(let final):
          try enter(final, path: &path, count: &count)
          return (final, "done")
        }
      case .multiple(let exits, let hasDefault):
        let key = walk.decider % 4
        if node.isFinal { return (node.id, "key(\(key))") }
        switch exits[key] {
        case .fallThrough:
          index += 1
        case .missing:
          guard hasDefault else {
            throw Stop(kind: .unmatchedKey, state: node.id, path: before + path)
          }
          index += 1
        case .jump(.goTo(let target)):
          index = target
        case .jump(.final(let final)):
          try enter(final, path: &path, count: &count)
          return (final, "done")
        }
      case .dispatch:
        preconditionFailure("handled above")
      }
    }
  }

  /// Enters state `id`: fails when the flow already entered as many states as its limit.
  private func enter(_ id: Int, path: inout [Int], count: inout Int) throws(Stop) {
    guard count < stepLimit else { throw Stop(kind: .stepLimitExceeded) }
    count += 1
    path.append(id)
  }
}
