// A logged live run's log: what only a run someone logs needs, made only for one and held
// by `LiveRun` as one optional reference (see `LiveRun.swift`).

/// What only a logged run needs: its log's recorder, its sink and the lock that lets one
/// flow at a time write to it, and each flow's last context. A run nobody logs makes none of
/// it, and holds one `nil` reference.
///
/// The recorder is part of the run's state: it is read and changed only under the run's
/// lock (``LiveRun/state``), as it was when ``LiveRunState`` held it, and it lives here only
/// so that a run nobody logs does not carry its bytes in that lock's buffer.
final class LiveRunLogging<Context: Sendable> {
  /// Where the run writes each line of its log, if anywhere.
  let sink: (any RunLogSink)?
  /// The lock that lets one flow at a time hand the sink its lines (see
  /// `LiveRun.writeLog()`), holding how many writing sessions have run. It holds a count
  /// rather than nothing: ThreadSanitizer reported the header access of a `Lock<Void>`'s
  /// zero-sized value, outside the mutex, as racing with the access inside it.
  let writing = Lock(0)
  /// The context each flow had after its last state, to show what the next one changed.
  let contexts: Lock<[Int32: Context]>
  /// The log: only under the run's lock, through ``recorder(in:_:)``.
  private var _recorder: RunLogRecorder

  init(context: Context, options: RunLog.Options) {
    sink = options.sink
    contexts = Lock([0: context])
    _recorder = RunLogRecorder(options)
  }

  /// Runs `body` with the log's recorder. `locked` is the run's state, passed by the
  /// closure of the run's `state.withLock`: only there can the caller have it to pass, so
  /// the recorder is touched under the run's lock.
  @inline(__always)
  func recorder<Result>(
    in locked: inout LiveRunState, _ body: (inout RunLogRecorder) -> Result
  ) -> Result {
    body(&_recorder)
  }
}

// `LiveRunLogging` is `Sendable` though it has a `var`: `sink` is a `Sendable` existential and
// `writing` and `contexts` are locks of `Sendable` values (`Context: Sendable`), all `let`;
// `_recorder` is private and read or changed only in `recorder(in:_:)`, whose every caller
// (in `LiveRun.swift` and `LiveRun+Events.swift`) is inside the closure of the run's
// `state.withLock` and passes that closure's `inout LiveRunState` (the mutex is held for the
// whole access, so no two threads touch the recorder at once, and the mutex orders each
// access after the one before). Each `LiveRunLogging` belongs to one run.
extension LiveRunLogging: @unchecked Sendable {}
