import Synchronization

/// Tells a run that its task was cancelled, in one atomic load.
///
/// A run checks for cancellation before every state. `Task.isCancelled` costs two runtime
/// calls, about a quarter of an asynchronous transition here; instead each flow installs a
/// cancellation handler that sets this flag, and the loop reads the flag.
@usableFromInline
final class CancellationSignal: Sendable {
  @usableFromInline let flag = Atomic<Bool>(false)

  @usableFromInline
  init() {}

  /// Whether the task running the flow has been cancelled.
  @inlinable
  var isCancelled: Bool { flag.load(ordering: .relaxed) }

  /// Records the cancellation; called by the task's cancellation handler.
  @usableFromInline
  func cancel() {
    flag.store(true, ordering: .relaxed)
  }
}
