/// What happened to each branch of a dispatch: which succeeded, failed, were skipped or
/// were cancelled once their ``JoinPolicy``'s quorum was met.
///
/// A dispatch declared with a `report` closure (see ``Dispatch``) receives one after its
/// branches' merges, when the dispatch itself succeeded:
///
/// ```swift
/// Dispatch("Mirrors", join: .firstSuccess) { context, branch in
///   context.file = context.file ?? branch.file
/// } branches: { … } report: { context, report in
///   context.answered = report.succeeded.map(\.index)
/// }
/// ```
public struct DispatchReport: Sendable {
  /// One branch's end.
  public struct Entry: Sendable {
    /// The branch's position among the dispatch's branches, from 0, in declaration order.
    public let index: Int
    /// The branch's name, or `nil` when it has none.
    public let name: String?
    /// How the branch ended.
    public let status: Status
    /// The branch's error when it failed; its path starts where the flow that dispatched
    /// started. `nil` otherwise.
    public let error: RunError?
  }

  /// How a branch ended. Later versions may add statuses, so compare with the static
  /// members rather than switching over a status.
  public struct Status: Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
      case succeeded, failed, skipped, cancelled
    }

    private let code: Code

    private init(_ code: Code) { self.code = code }

    /// The branch ended at one of its final states; its context was merged.
    public static let succeeded = Status(.succeeded)
    /// The branch failed, and the policy tolerated it; its changes were dropped.
    public static let failed = Status(.failed)
    /// A prerequisite of the branch failed or was skipped, so the branch never started.
    public static let skipped = Status(.skipped)
    /// The quorum was met first: the branch was cancelled, or never started.
    public static let cancelled = Status(.cancelled)

    /// `succeeded`, `failed`, `skipped` or `cancelled`.
    public var description: String {
      switch code {
      case .succeeded: "succeeded"
      case .failed: "failed"
      case .skipped: "skipped"
      case .cancelled: "cancelled"
      }
    }
  }

  /// The dispatch state.
  public let dispatch: StateID
  /// The dispatch state's name.
  public let dispatchName: String
  /// Every branch, in declaration order.
  public let branches: [Entry]

  /// The branches that succeeded, in declaration order.
  public var succeeded: [Entry] { branches.filter { $0.status == .succeeded } }
  /// The branches that failed, in declaration order.
  public var failed: [Entry] { branches.filter { $0.status == .failed } }
  /// The branches skipped because a prerequisite failed or was skipped.
  public var skipped: [Entry] { branches.filter { $0.status == .skipped } }
  /// The branches cancelled, or never started, once the quorum was met.
  public var cancelled: [Entry] { branches.filter { $0.status == .cancelled } }
}

/// Holds a dispatch's `report` closure: the chart's context is erased in
/// ``DispatchBehavior``, and the run loop casts back.
@usableFromInline
final class ReportBox<Context: Sendable>: Sendable {
  @usableFromInline let function: @Sendable (inout Context, DispatchReport) throws -> Void

  init(_ function: @escaping @Sendable (inout Context, DispatchReport) throws -> Void) {
    self.function = function
  }
}

/// How the branches of a dispatch that did not succeed ended, as a join counts them.
@usableFromInline
struct JoinTally: Sendable {
  /// How many branches succeeded.
  @usableFromInline var successes = 0
  /// How many branches failed or were skipped.
  @usableFromInline var failures = 0
  /// The branches that failed, with their errors as their flows threw them, in the order
  /// they failed.
  @usableFromInline var failed: [(index: Int, error: RunError)] = []
  /// The branches skipped because a prerequisite failed or was skipped.
  @usableFromInline var skipped: [Int] = []

  @inlinable init() {}

  /// Whether branch `index` failed or was skipped.
  @inlinable
  func didNotSucceed(_ index: Int) -> Bool {
    skipped.contains(index) || failed.contains { $0.index == index }
  }
}
