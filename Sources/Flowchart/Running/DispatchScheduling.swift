// What an asynchronous dispatch (`Interpreter+Dispatch.swift`) shares between its branches'
// tasks and the dispatching task: each branch's outcome, which branch starts next, the
// counters and results of a limited dispatch's workers.

/// What a dispatch branch's task returns: which branch, and how it ended.
@usableFromInline
struct BranchOutcome<Context: Sendable>: Sendable {
  @usableFromInline var index: Int
  @usableFromInline var result: Result<FinishedBranch<Context>, RunError>

  @usableFromInline
  init(index: Int, result: Result<FinishedBranch<Context>, RunError>) {
    self.index = index
    self.result = result
  }
}

/// The counters a limited dispatch's workers share: the next branch to take, the successes
/// and failures so far, and whether an outcome has decided the dispatch.
@usableFromInline
final class BranchClaims: Sendable {
  @usableFromInline let next = AtomicWord<Int>(0)
  @usableFromInline let successes = AtomicWord<Int>(0)
  @usableFromInline let failures = AtomicWord<Int>(0)
  @usableFromInline let decided = AtomicWord<Int>(0)

  @inlinable
  init() {}

  /// Whether an outcome has decided the dispatch.
  @inlinable
  var isDecided: Bool { decided.load(ordering: .relaxed) != 0 }

  /// Claims the decision; `false` when another outcome claimed it first.
  @inlinable
  func decide() -> Bool {
    decided.compareExchange(expected: 0, desired: 1, ordering: .relaxed).exchanged
  }
}

/// What one worker of a limited dispatch did: the branches it finished (kept) and those
/// that failed within the tolerance, with their indices, and the outcome that decided the
/// dispatch, if it claimed it.
@usableFromInline
struct BranchWork<Context: Sendable>: Sendable {
  @usableFromInline var finished: [(Int, FinishedBranch<Context>)] = []
  @usableFromInline var failed: [(Int, RunError)] = []
  /// The failure that decided the dispatch.
  @usableFromInline var fatal: RunError?
  /// Whether this worker's success met the quorum.
  @usableFromInline var metQuorum = false

  @inlinable
  init() {}
}

/// How the branches of a concurrent dispatch ended.
@usableFromInline
enum DispatchOutcome<Context: Sendable> {
  /// The join policy is satisfied: the branches that succeeded, in declaration order, and
  /// how the others ended.
  case joined([FinishedBranch<Context>?], JoinTally)
  /// A branch failed beyond the policy's tolerance: the dispatch's error.
  case branchFailed(RunError)
  /// Merging a branch's prerequisites into its starting context threw.
  case mergeFailed(any Error)
}

/// Which branch of a dispatch starts next: the earliest declared one not yet started whose
/// prerequisites have all ended.
@usableFromInline
struct BranchSchedule {
  /// The first branch not yet started, when no branch has prerequisites and they start in
  /// declaration order; otherwise the first that may still be waiting.
  @usableFromInline var first = 0
  /// Which branches have started; empty when no branch has prerequisites.
  @usableFromInline var started: [Bool]
  @usableFromInline let waitsForOthers: Bool
  @usableFromInline let count: Int

  @inlinable
  init(count: Int, waitsForOthers: Bool) {
    started = waitsForOthers ? [Bool](repeating: false, count: count) : []
    self.waitsForOthers = waitsForOthers
    self.count = count
  }

  /// The next branch to start, marked started, or `nil` when none may start now.
  @inlinable
  mutating func nextReady<Branch>(
    _ prerequisites: [[Int32]], finished: [Branch?]
  ) -> Int? {
    guard waitsForOthers else {
      guard first < count else { return nil }
      defer { first += 1 }
      return first
    }
    while first < count, started[first] { first += 1 }
    var index = first
    while index < count {
      if !started[index], prerequisites[index].allSatisfy({ finished[Int($0)] != nil }) {
        started[index] = true
        return index
      }
      index += 1
    }
    return nil
  }

  /// Marks the branches not yet started that wait for a branch that failed or was skipped
  /// as skipped (and started, so they never start), each counted as a failure.
  ///
  /// - Returns: `false` when the failures then exceed `tolerance`.
  @inlinable
  mutating func skipDependents(
    _ prerequisites: [[Int32]], tally: inout JoinTally, tolerance: Int
  ) -> Bool {
    var changed = true
    while changed {
      changed = false
      for index in first..<count where !started[index] {
        guard prerequisites[index].contains(where: { tally.didNotSucceed(Int($0)) }) else {
          continue
        }
        started[index] = true
        tally.skipped.append(index)
        tally.failures += 1
        if tally.failures > tolerance { return false }
        changed = true
      }
    }
    return true
  }
}
