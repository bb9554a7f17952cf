// A live run whose every handle is gone: nothing can resume it or send it a value, so a run
// that stops to wait for either would wait forever, a task nobody can reach. The rule: such
// a run is cancelled as soon as one of its flows waits for something only a handle can give,
// that is, when its last handle goes while a flow waits, or when a flow comes to wait later.
// A run that needs nothing from outside goes on to its end.
//
// Each copy of a `RunHandle` holds one `HandleLifetime`, and nothing else does: its `deinit`
// is the moment the last copy goes. The run's flows tell its `RunAbandonment` when they start
// to wait (the slow paths of a pause and of a waiting state), so nothing on the path of a
// state that does not wait changes.

/// Whether a live run's handles are all gone, and how to cancel the run then.
final class RunAbandonment: Sendable {
  /// Cancels the run's task; set once the last handle is gone.
  private let cancelRun = Lock<(@Sendable () -> Void)?>(nil)

  /// The last handle is gone: from now on, a flow that waits cancels the run.
  func abandon(cancellingWith cancel: @escaping @Sendable () -> Void) {
    cancelRun.withLock { $0 = cancel }
  }

  /// A flow of the run has just started to wait, paused at a boundary or for input, and is
  /// registered as waiting: cancels the run when no handle is left to resume it or feed it.
  /// Called without the run's lock held (the cancellation ends the wait under it).
  func flowWaits() {
    if let cancel = cancelRun.withLock({ $0 }) { cancel() }
  }
}

/// The lifetime of a run's handles: held by every copy of one ``RunHandle``, so its
/// `deinit` runs when the last copy goes.
final class HandleLifetime: Sendable {
  private let abandonment: RunAbandonment
  /// Whether a flow of the run waits, paused or for input.
  private let hasWaitingFlows: @Sendable () -> Bool
  private let cancelRun: @Sendable () -> Void

  init<Context: Sendable>(
    run: LiveRun<Context>, task: Task<Result<RunResult<Context>, RunError>, Never>
  ) {
    abandonment = run.abandonment
    hasWaitingFlows = { run.hasWaitingFlows }
    cancelRun = { task.cancel() }
  }

  deinit {
    // Marked first, checked second: a flow that starts to wait meanwhile registers first and
    // checks the mark second, so one of the two sees the other (each step under a lock).
    abandonment.abandon(cancellingWith: cancelRun)
    if hasWaitingFlows() { cancelRun() }
  }
}

extension RunHandle {
  /// The handle of `run`, which runs on `task`: the first copy.
  init(run: LiveRun<Context>, task: Task<Result<RunResult<Context>, RunError>, Never>) {
    self.run = run
    self.task = task
    lifetime = HandleLifetime(run: run, task: task)
  }
}
