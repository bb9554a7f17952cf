// A live run whose every handle is gone: nothing can resume it or send it a value, so a run
// that stops to wait for either would wait forever, a task nobody can reach. The rule: such
// a run is cancelled as soon as one of its flows waits for something only a handle can give,
// that is, when its last handle goes while a flow waits, or when a flow comes to wait later.
// A run that needs nothing from outside goes on to its end.
//
// Each copy of a `RunHandle` holds one `HandleLifetime`, and nothing else does: its `deinit`
// is the moment the last copy goes, when it tells the run (`LiveRun.abandon`). The run's
// flows look when they register as waiting (the slow paths of a pause and of a waiting
// state), under the run's lock, so that one of the two sides always sees the other; nothing
// on the path of a state that does not wait changes. The lifetime is one small object per
// run, and the run keeps a closure only once abandoned.

/// The lifetime of a run's handles: held by every copy of one ``RunHandle``, so its
/// `deinit` runs when the last copy goes.
final class HandleLifetime<Context: Sendable>: Sendable {
  private let run: LiveRun<Context>
  private let task: Task<Result<RunResult<Context>, RunError>, Never>

  init(run: LiveRun<Context>, task: Task<Result<RunResult<Context>, RunError>, Never>) {
    self.run = run
    self.task = task
  }

  deinit {
    run.abandon(cancellingWith: { [task] in task.cancel() })
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
