/// A random chart described as plain data: the one source from which both the
/// ``Flowchart`` under test (``RandomPlan/chart()``) and the reference interpreter
/// (``ReferenceRun``) are built.
///
/// A plan is a tree of flows. A flow is a list of states read top to bottom, as a block of
/// the DSL is: each state goes on to the next one unless an exit jumps elsewhere, and the
/// last state of every flow is final. Every state has a way to go on to the next one (a
/// condition's no, a keyed exit that falls through, an action, a dispatch), so every plan
/// compiles: nothing is unreachable and every loop can reach a final state.
///
/// Every state is named `S<id>`, ids unique in the whole plan, so a `GoTo` and a named start
/// find exactly one state.
struct RandomPlan: Sendable {
  /// One state of a flow.
  struct Node: Sendable {
    var id: Int
    var kind: Kind
    /// The last state of its flow.
    var isFinal: Bool
    /// What the state's code does besides recording itself; nothing for a dispatch.
    var code: Code
  }

  enum Kind: Sendable {
    /// Records itself, then goes on to the next state.
    case action
    /// Decides `decider % modulus == 0`: yes takes `yes`, no goes on to the next state.
    /// Final, it decides yes or no and has no exits (`yes` is `nil`).
    case condition(modulus: Int, yes: Jump?)
    /// Decides the key `decider % 4` and takes that key's exit. Final, it decides the key
    /// and has no exits.
    case multiple(exits: [KeyedExit], hasDefault: Bool)
    /// Runs `branches` on copies of the context, then folds them back with
    /// ``Walk/merge(_:_:failsAt:)``, in declaration order, when `merge` is set. With
    /// `toleratesFailure`, the dispatch's join policy is `.toleratingFailures(1)`: the one
    /// risky branch may fail, and is then dropped.
    case dispatch(branches: [[Node]], merge: Merge?, toleratesFailure: Bool)
  }

  /// Where a yes or keyed exit leads.
  enum Jump: Sendable {
    /// A `GoTo` to the state at this index of the same flow.
    case goTo(Int)
    /// An inline final action with this id, and no code.
    case final(Int)
  }

  /// The exit of one key of a multiple condition (keys `0..<4`).
  enum KeyedExit: Sendable {
    case jump(Jump)
    /// An empty `Case`: goes on to the next state.
    case fallThrough
    /// No `Case` for the key: the `Default` (an empty one, which goes on to the next
    /// state) if there is one, else the run fails with ``RunError/Kind/unmatchedKey``.
    case missing
  }

  /// A dispatch's merge.
  struct Merge: Sendable {
    /// The merge throws ``PlannedFailure`` when a branch's `decider % 3 == 0`.
    var fails: Bool
  }

  /// What a state's code does after recording itself with ``Walk/step(_:)``.
  struct Code: Sendable {
    /// Whether the state's code is `async`; it then awaits `Task.yield()` before and after
    /// its work.
    var isAsynchronous: Bool
    /// Cancels the run's task when `decider % cancelsEvery == 0`, then does `afterCancel`.
    var cancelsEvery: Int?
    var afterCancel: AfterCancel = .returns
    /// Throws `failure` when `decider % failsEvery == 0` (and the state has not cancelled).
    var failsEvery: Int?
    var failure: Failure = .planned
  }

  enum AfterCancel: Sendable, CaseIterable {
    /// Goes on as if nothing happened.
    case returns
    /// Throws ``PlannedFailure``.
    case throwsFailure
    /// Calls `Task.checkCancellation()`, which throws `CancellationError`.
    case checksCancellation
    /// Runs another chart (``RandomPlan/anotherChart``), in the same way as the state's own
    /// code (synchronously or not), which is cancelled with the task; its `RunError`, if it
    /// throws one, is the state's error.
    case runsAnotherChart
  }

  enum Failure: Sendable {
    /// ``PlannedFailure``.
    case planned
    /// `CancellationError()`, in a task that nobody cancelled.
    case cancellationError
  }

  /// The top-level flow.
  var flow: [Node]
  /// The step limit to run with; `nil` for none (only in plans without cycles).
  var stepLimit: Int?
  /// A top-level state to start a second run at, by name.
  var namedStart: Int

  /// Whether every state's code is synchronous, so the chart can run synchronously.
  var isSynchronous: Bool { Self.isSynchronous(flow) }

  private static func isSynchronous(_ flow: [Node]) -> Bool {
    flow.allSatisfy { node in
      if case .dispatch(let branches, _, _) = node.kind {
        return branches.allSatisfy(isSynchronous)
      }
      return !node.code.isAsynchronous
    }
  }
}

/// The error planned states and merges throw.
struct PlannedFailure: Error, Equatable {
  /// The id of the state (or dispatch, for a merge) that threw.
  var state: Int
}

// MARK: - The generator

extension RandomPlan {
  /// Draws a plan from `seed`.
  ///
  /// - Parameters:
  ///   - cancellation: Whether states may cancel the run and throw `CancellationError`:
  ///     what issue 13's cancellation rule decides.
  ///   - joinPolicies: Whether dispatches may tolerate their risky branch's failure.
  ///
  /// Failures are placed so that the outcome never depends on which of two concurrent
  /// branches fails first: in each dispatch at most one branch is *risky* (may throw, decide
  /// a key with no exit, loop into the step limit, hold a failing merge or cancel); the
  /// others are *safe*: no failure, only forward `GoTo`s, and fewer states than the step
  /// limit, so they always reach their final state. The top-level flow is risky.
  init(seed: UInt64, cancellation: Bool, joinPolicies: Bool = false) {
    var generator = Generator(
      random: SeededGenerator(seed: seed), cancellation: cancellation)
    if joinPolicies { generator.policies = SeededGenerator(seed: ~seed) }
    generator.asynchronousShare = Int.random(in: 0...2, using: &generator.random)
    flow = generator.flow(
      count: Int.random(in: 1...16, using: &generator.random), depth: 0, risky: true)
    if !generator.hasCycle && Bool.random(using: &generator.random) {
      stepLimit = nil
    } else if Bool.random(using: &generator.random) {
      stepLimit = 300
    } else {
      let least = generator.longestSafeBranch + 1
      stepLimit = Int.random(in: least...least + 24, using: &generator.random)
    }
    namedStart = Int.random(in: flow.indices, using: &generator.random)
  }

  private struct Generator {
    var random: SeededGenerator
    let cancellation: Bool
    var asynchronousShare = 0
    /// Draws which dispatches tolerate a failure; `nil` for none.
    var policies: SeededGenerator?
    var nextID = 0
    var hasCycle = false
    /// The most states any safe branch can enter.
    var longestSafeBranch = 0

    init(random: SeededGenerator, cancellation: Bool) {
      self.random = random
      self.cancellation = cancellation
    }

    mutating func id() -> Int {
      defer { nextID += 1 }
      return nextID
    }

    mutating func chance(_ numerator: Int, in denominator: Int) -> Bool {
      Int.random(in: 0..<denominator, using: &random) < numerator
    }

    mutating func flow(count: Int, depth: Int, risky: Bool) -> [Node] {
      let ids = (0..<count).map { _ in id() }
      return (0..<count).map { index in
        node(id: ids[index], at: index, of: count, depth: depth, risky: risky)
      }
    }

    mutating func node(id: Int, at index: Int, of count: Int, depth: Int, risky: Bool) -> Node {
      let isFinal = index == count - 1
      let canDispatch = depth < 2
      let kind: Kind
      switch Int.random(in: 0..<(canDispatch ? 20 : 17), using: &random) {
      case 0..<6:
        kind = .action
      case 6..<11:
        kind = .condition(
          modulus: Int.random(in: 2...4, using: &random),
          yes: isFinal ? nil : jump(from: index, of: count, risky: risky))
      case 11..<17:
        if isFinal {
          kind = .multiple(exits: [], hasDefault: false)
        } else {
          kind = multiple(from: index, of: count, risky: risky)
        }
      default:
        kind = dispatch(depth: depth, risky: risky)
      }
      return Node(id: id, kind: kind, isFinal: isFinal, code: code(risky: risky))
    }

    mutating func jump(from index: Int, of count: Int, risky: Bool) -> Jump {
      if chance(1, in: 4) { return .final(id()) }
      // A safe flow jumps only forward, so it cannot loop.
      let target = Int.random(in: (risky ? 0 : index + 1)..<count, using: &random)
      if target <= index { hasCycle = true }
      return .goTo(target)
    }

    mutating func multiple(from index: Int, of count: Int, risky: Bool) -> Kind {
      let fallThrough = Int.random(in: 0..<4, using: &random)
      var exits: [KeyedExit] = []
      for key in 0..<4 {
        if key == fallThrough {
          exits.append(.fallThrough)
          continue
        }
        switch Int.random(in: 0..<(risky ? 6 : 5), using: &random) {
        case 0, 1: exits.append(.fallThrough)
        case 2, 3, 4: exits.append(.jump(jump(from: index, of: count, risky: risky)))
        default: exits.append(.missing)
        }
      }
      let hasMissing = exits.contains { if case .missing = $0 { true } else { false } }
      return .multiple(exits: exits, hasDefault: hasMissing && chance(1, in: 3))
    }

    mutating func dispatch(depth: Int, risky: Bool) -> Kind {
      let count = Int.random(in: 1...3, using: &random)
      let riskyBranch = risky && chance(2, in: 3) ? Int.random(in: 0..<count, using: &random) : nil
      var branches: [[Node]] = []
      for index in 0..<count {
        let isRisky = index == riskyBranch
        let branch = flow(
          count: Int.random(in: 1...4, using: &random), depth: depth + 1, risky: isRisky)
        if !isRisky { longestSafeBranch = max(longestSafeBranch, Self.mostStates(branch)) }
        branches.append(branch)
      }
      let merge = chance(3, in: 4) ? Merge(fails: risky && chance(1, in: 5)) : nil
      // Drawn from a generator of its own, so that plans drawn without join policies stay
      // what they were.
      let tolerates = policies.map { _ in Bool.random(using: &policies!) } ?? false
      return .dispatch(branches: branches, merge: merge, toleratesFailure: tolerates)
    }

    mutating func code(risky: Bool) -> Code {
      var code = Code(isAsynchronous: Int.random(in: 0..<2, using: &random) < asynchronousShare)
      guard risky else { return code }
      if chance(1, in: 8) {
        code.failsEvery = Int.random(in: 2...5, using: &random)
        if cancellation && chance(1, in: 3) { code.failure = .cancellationError }
      }
      if cancellation && chance(1, in: 8) {
        code.cancelsEvery = Int.random(in: 1...3, using: &random)
        code.afterCancel = AfterCancel.allCases.randomElement(using: &random)!
      }
      return code
    }

    /// The most states a flow without backward jumps can enter: each of its states once,
    /// each inline final state, and the most each nested branch can enter.
    static func mostStates(_ flow: [Node]) -> Int {
      flow.reduce(0) { total, node in
        switch node.kind {
        case .action: total + 1
        case .condition: total + 2
        case .multiple(let exits, _): total + 1 + exits.count
        case .dispatch(let branches, _, _): total + 1 + branches.map(mostStates).reduce(0, +)
        }
      }
    }
  }
}
