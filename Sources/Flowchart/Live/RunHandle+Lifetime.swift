// A live run whose every handle is gone: nothing can resume it or send it a value, so a run
// that stops to wait for either would wait forever, a task nobody can reach. The rule: such
// a run is cancelled as soon as one of its flows waits for something only a handle can give,
// that is, when its last handle goes while a flow waits, or when a flow comes to wait later.
// A run that needs nothing from outside goes on to its end.
//
// Each copy of a `RunHandle` holds one `HandleLifetime`, and nothing else does: its `deinit`
// is the moment the last copy goes, when it tells the run (`LiveRun.abandon`). The run's
// flows look when they register as waiting (the slow paths of a pause, of a waiting state and
// of parking: see `ParkedFlow.swift`), under the run's lock, so that one of the two sides
// always sees the other; nothing on the path of a state that does not wait changes. The
// lifetime is one small object per run. A parked run is held by its handles alone: the last
// one going cancels it, which starts the task that ends it.

/// The lifetime of a run's handles: held by every copy of one ``RunHandle``, so its
/// `deinit` runs when the last copy goes.
final class HandleLifetime<Context: Sendable>: Sendable {
  private let run: LiveRun<Context>

  init(run: LiveRun<Context>) {
    self.run = run
  }

  deinit {
    run.abandon()
  }
}

extension RunHandle {
  /// The handle of `run`: the first copy.
  init(run: LiveRun<Context>) {
    self.run = run
    lifetime = HandleLifetime(run: run)
  }
}
