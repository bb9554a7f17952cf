/// What a state's code can read about the run it runs in: the run's id and the attempt the
/// state is at, for idempotency keys.
///
/// Across a crash, a run's control flow is exactly-once but a state's code is
/// at-least-once: a snapshot is taken at a boundary, so a state whose code was running when
/// the process died runs again when the run is resumed. Code with effects outside the run
/// (a payment, an email) should make them idempotent, keyed by the run's id and something
/// of its own (an order number in the context, say):
///
/// ```swift
/// Action("Charge") { order in
///   let key = "\(RunInfo.current?.runID.text ?? "local")-charge-\(order.number)"
///   try await payments.charge(order.amount, idempotencyKey: key)
/// }
/// ```
///
/// Set only in live runs (``Flowchart/start(with:stepLimit:clock:isPaused:isLogged:observer:isolation:)``,
/// a retry, a resumed run), where it costs nothing more: the run is already the task's
/// mailbox. ``current`` is `nil` in `run(with:)` and `runSynchronously`.
public struct RunInfo: Sendable, Hashable {
  /// The run's id (see ``RunHandle/runID``): a resumed run keeps its snapshot's.
  public let runID: RunID
  /// The attempt the state is at: 1, then 2 and up while a ``FlowComponent/retry(_:backoff:if:fileID:line:)``
  /// rule retries it. A run resumed from a snapshot taken between two attempts goes on
  /// with the next one; a state whose code was running when the snapshot was taken runs
  /// again from 1.
  public let attempt: Int

  /// The run the current task runs a state of, if it is a live run.
  public static var current: RunInfo? {
    guard let run = LiveInbox.current as? any IdentifiedRun else { return nil }
    return RunInfo(runID: run.runID, attempt: RunAttempt.current)
  }
}

/// A run with an id: a live run.
protocol IdentifiedRun: Sendable {
  var runID: RunID { get }
}

extension LiveRun: IdentifiedRun {}

/// The attempt a retried state is at, set only around its second and later attempts in a
/// live run.
enum RunAttempt {
  @TaskLocal static var current = 1
}
