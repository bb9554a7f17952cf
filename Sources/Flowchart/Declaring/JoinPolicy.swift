/// How many branches of a ``Dispatch`` must succeed, and what happens to the others.
///
/// A branch *succeeds* when it ends at one of its final states. It *fails* when its run
/// throws a ``RunError``; a branch whose prerequisite failed or was skipped is *skipped*,
/// and counts as a failure. The changes of branches that did not succeed are dropped: only
/// the succeeded branches' contexts are merged, in declaration order.
///
/// - ``all``: every branch must succeed; the first failure fails the dispatch and cancels
///   the branches still running. The default.
/// - ``toleratingFailures(_:)``: every branch runs; up to that many may fail, one more
///   fails the dispatch.
/// - ``quorum(_:)``: once that many branches have succeeded, the others are cancelled (in a
///   synchronous run, not started) and the dispatch goes on; it fails as soon as that many
///   successes have become impossible.
/// - ``firstSuccess``: a quorum of one.
///
/// When the run itself is cancelled, no failure is tolerated: the run ends
/// ``RunError/Kind/cancelled``, as ``RunError/Kind/cancelled`` describes.
///
/// Later versions may add policies, so compare with the static members rather than
/// switching over a policy.
public struct JoinPolicy: Hashable, Sendable, CustomStringConvertible {
  private enum Rule: Hashable, Sendable {
    case all
    case toleratingFailures(Int)
    case quorum(Int)
  }

  private let rule: Rule

  private init(_ rule: Rule) { self.rule = rule }

  /// Every branch must succeed: the first failure fails the dispatch and cancels the rest.
  public static let all = JoinPolicy(.all)

  /// Every branch runs, and up to `count` of them may fail (or be skipped); their changes
  /// are dropped. One more failure fails the dispatch. `count` must be 0 or more.
  public static func toleratingFailures(_ count: Int) -> JoinPolicy {
    JoinPolicy(.toleratingFailures(count))
  }

  /// Any `count` of the branches: once `count` have succeeded, the others are cancelled and
  /// only the succeeded ones are merged. The dispatch fails once `count` successes have
  /// become impossible. `count` must be between 1 and the number of branches.
  public static func quorum(_ count: Int) -> JoinPolicy { JoinPolicy(.quorum(count)) }

  /// The first branch to succeed wins and the others are cancelled: a quorum of one.
  public static let firstSuccess = quorum(1)

  /// The policy as written in code: `.all`, `.toleratingFailures(2)`, `.quorum(3)`.
  public var description: String {
    switch rule {
    case .all: ".all"
    case .toleratingFailures(let count): ".toleratingFailures(\(count))"
    case .quorum(let count): ".quorum(\(count))"
    }
  }

  /// How the policy applies to a dispatch of `branchCount` branches: how many failures it
  /// tolerates, and after how many successes it stops the other branches (`branchCount`
  /// when it never stops them early).
  func limits(branchCount: Int) -> (tolerance: Int, quorum: Int) {
    switch rule {
    case .all: (0, branchCount)
    case .toleratingFailures(let count): (count, branchCount)
    case .quorum(let count): (branchCount - count, count)
    }
  }

  /// Why the policy cannot apply to a dispatch of `branchCount` branches, as the end of a
  /// sentence, or `nil` when it can.
  func problem(branchCount: Int) -> String? {
    switch rule {
    case .all:
      return nil
    case .toleratingFailures(let count):
      guard count < 0 else { return nil }
      return "which tolerates fewer than no failures. Give it 0 or more"
    case .quorum(let count):
      if count < 1 {
        return "which would never need a branch to succeed. Give it 1 or more"
      }
      guard count > branchCount else { return nil }
      return
        "but the dispatch has only \(branchCount == 1 ? "1 branch" : "\(branchCount) branches"). Give it at most \(branchCount), or add branches"
    }
  }
}
