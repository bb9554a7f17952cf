import Flowchart

/// When a live run started with a store saves its snapshot there.
public enum RunSaving: Hashable, Sendable {
  /// When the run rests: it waits for input or for a time, is paused, fails, is cancelled
  /// or finishes. A run that is cut off while it runs (its process dies) is resumed from
  /// where it last rested: the states it entered since then run again.
  case whenItRests
  /// After every state of the top-level flow, and when the run rests. A run cut off while it
  /// runs is resumed at the state it was in: that state's code runs again. Each save holds
  /// the run at its next boundary for the time of a snapshot and a store's write.
  case everyState
}

/// A live run that saves its snapshots to a run store, at the boundaries its ``RunSaving``
/// chose: what `chart.start(with:id:chart:store:saving:)` and
/// `chart.start(resuming:in:chart:)` return.
///
/// The run saves while this object is held: once it is released (and every copy of
/// ``handle`` with it), a run that waits is cancelled and its store keeps its last save, so
/// another process can resume it. Wait for ``rested()`` before a process exits: it returns
/// once the run rests and that has been saved.
///
/// ## At-least-once
///
/// The store holds the run as of its last save, and a save comes after the boundary it
/// records. A process that dies between two saves leaves the earlier one: resumed, the run
/// goes on from there, and the code of the states it had entered since runs again (with
/// ``RunSaving/everyState``, the code of one state at most; with
/// ``RunSaving/whenItRests``, of every state since the run last rested). Control flow is
/// exactly-once from the saved point; a state's code is at-least-once. Make code with
/// effects outside the run idempotent, keyed by `RunInfo.current?.runID` (see `RunInfo`).
public final class DurableRunHandle<Context: Codable & Sendable>: Sendable {
  /// The live run: send it values, pause it, cancel it, await its result.
  public let handle: RunHandle<Context>
  /// The store the run saves to.
  public let store: any RunStore
  /// What the saves have come to.
  private let saves: Saves

  /// The run's id: what it is saved, listed and loaded by.
  public var id: RunID { handle.runID }

  init(handle: RunHandle<Context>, store: any RunStore, saves: Saves) {
    self.handle = handle
    self.store = store
    self.saves = saves
  }

  /// Sends `value` to the waiting state named `stateName`, as `RunHandle.send(_:to:)`
  /// does, so that a later ``rested()`` waits for the run to rest again.
  @discardableResult
  public func send<Value: Sendable>(_ value: Value, to stateName: String) throws(InputError)
    -> Bool
  {
    saves.willMove()
    return try handle.send(value, to: stateName)
  }

  /// Lets a paused run go on, as `RunHandle.resume()` does, so that a later
  /// ``rested()`` waits for the run to rest again.
  public func resume() {
    saves.willMove()
    handle.resume()
  }

  /// Waits until the run rests (it waits for input or a time, is paused, failed, was
  /// cancelled, or finished) and its snapshot there is saved, then returns its status as
  /// saved. Returns at once when the run rests and was saved since it last moved (since
  /// ``send(_:to:)`` or ``resume()``).
  ///
  /// - Throws: The error of the save that failed (the store's, or a
  ///   ``StoredSnapshotError``), or the `SnapshotError` of a run that could not be captured.
  public func rested() async throws -> RunStatus {
    try await saves.rested()
  }

  /// Starts saving `handle`'s run on the triggers `stream` gets.
  static func saving(
    _ handle: RunHandle<Context>, to store: any RunStore, triggers: AsyncStream<Void>,
    saves: Saves
  ) -> DurableRunHandle {
    let durable = DurableRunHandle(handle: handle, store: store, saves: saves)
    Task { [weak durable] in
      for await _ in triggers {
        // Released: the run is cancelled if it waits; the store keeps its last save.
        guard let handle = durable?.handle else { break }
        do {
          let snapshot = try await handle.snapshot()
          try await store.save(snapshot)
          saves.saved(snapshot.status)
        } catch {
          saves.failed(error)
        }
      }
    }
    return durable
  }
}

/// What a durable run's saves have come to, and who waits for the run to rest.
final class Saves: Sendable {
  private struct State {
    /// Triggers reported, and triggers saved (or failed): saves go in the order reported.
    var reported = 0
    var processed = 0
    /// The number of triggers reported when the run was last told to move on: a save of an
    /// earlier trigger does not show where it rests now.
    var movedAfter = 0
    /// The status of the last save, when the run rests there and has not moved since.
    var resting: RunStatus?
    /// The last save's error, if it failed.
    var failure: (any Error)?
    var waiters: [CheckedContinuation<RunStatus, any Error>] = []

    var isSettled: Bool { processed == reported }
  }

  private let state = Lock(State())

  /// A trigger was reported: a save is coming.
  func triggered() {
    state.withLock {
      $0.reported += 1
      $0.resting = nil
    }
  }

  /// The run is about to move on (a value sent, a pause lifted).
  func willMove() {
    state.withLock {
      $0.movedAfter = $0.reported
      $0.resting = nil
    }
  }

  /// The save of the next trigger is done: the run stood at `status`.
  func saved(_ status: RunStatus) {
    let (waiters, status) = state.withLock {
      locked -> ([CheckedContinuation<RunStatus, any Error>], RunStatus?) in
      locked.processed += 1
      locked.failure = nil
      guard locked.isSettled, locked.processed > locked.movedAfter, status != .running else {
        return ([], nil)
      }
      locked.resting = status
      defer { locked.waiters = [] }
      return (locked.waiters, status)
    }
    if let status { for waiter in waiters { waiter.resume(returning: status) } }
  }

  /// The save of the next trigger failed with `error`.
  func failed(_ error: any Error) {
    let waiters = state.withLock { locked -> [CheckedContinuation<RunStatus, any Error>] in
      locked.processed += 1
      locked.failure = error
      defer { locked.waiters = [] }
      return locked.waiters
    }
    for waiter in waiters { waiter.resume(throwing: error) }
  }

  /// Waits for the run to rest, saved.
  func rested() async throws -> RunStatus {
    try await withCheckedThrowingContinuation { continuation in
      let outcome = state.withLock { locked -> Result<RunStatus, any Error>? in
        if locked.isSettled, let failure = locked.failure { return .failure(failure) }
        if locked.isSettled, let resting = locked.resting { return .success(resting) }
        locked.waiters.append(continuation)
        return nil
      }
      if let outcome { continuation.resume(with: outcome) }
    }
  }
}

/// An observer that triggers a save at the boundaries `saving` chose, then calls `observer`.
func savingObserver(
  _ saving: RunSaving, saves: Saves, then observer: RunObserver?
) -> (RunObserver, AsyncStream<Void>) {
  let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .unbounded)
  let user = observer ?? RunObserver()
  let observer = RunObserver(
    willEnterState: user.willEnterState, didFinishState: user.didFinishState,
    didFinishRun: user.didFinishRun,
    didReport: { event in
      if event.flow == 0 {
        let trigger: Bool
        var ends = false
        switch event.kind {
        case .waitingForInput, .waitingUntil, .paused: trigger = true
        case .runFinished, .runFailed:
          trigger = true
          ends = true
        case .runStarted, .stateDecided: trigger = saving == .everyState
        case .stateEntered, .stateFailed, .dispatchStarted, .branchStarted, .branchEnded,
          .dispatchJoined, .resumed, .attemptFailed, .retrying, .caught, .branchFailed,
          .branchSkipped, .branchCancelled, .mapEnded:
          trigger = false
        }
        if trigger {
          saves.triggered()
          continuation.yield()
        }
        if ends { continuation.finish() }
      }
      user.didReport(event)
    })
  return (observer, stream)
}

extension Flowchart where Context: Codable {
  /// Starts a run with `context` that saves its snapshots to `store`, at the boundaries
  /// `saving` chooses: a durable run, which another process can list in the store and
  /// resume with `start(resuming:in:chart:)`.
  ///
  /// ```swift
  /// let store = try DirectoryRunStore(directory: "/var/lib/orders/runs")
  /// let run = chart.start(with: order, chart: "orders", store: store)
  /// let status = try await run.rested()  // waiting for input at 'Approve', saved
  /// ```
  ///
  /// - Parameters:
  ///   - context: The run's context.
  ///   - id: The run's id; a new one by default.
  ///   - chart: The chart's identity, which stays the same across its versions: a snapshot
  ///     is resumed only on a chart given the same identity.
  ///   - store: Where the run's snapshots go.
  ///   - saving: When the run saves: `RunSaving.whenItRests` by default.
  ///   - stepLimit: The most states the run may enter; the chart's default when `nil`.
  ///   - clock: The clock of the run's events, timeouts and backoffs, and of the
  ///     wall-clock time of its snapshots.
  ///   - isLogged: Whether the run keeps a log (the handle's `log`).
  ///   - observer: Called with each event as it happens.
  ///   - isolation: The actor the run's synchronous stretches run on; the caller's by
  ///     default.
  /// - Returns: The run, saving; hold it while it runs (see `DurableRunHandle`).
  public func start<C: Clock>(
    with context: Context, id: RunID = RunID(), chart: String, store: some RunStore,
    saving: RunSaving = .whenItRests, stepLimit: Int? = nil, clock: C = ContinuousClock(),
    isLogged: Bool = false, observer: RunObserver? = nil,
    isolation: isolated (any Actor)? = #isolation
  ) -> DurableRunHandle<Context> where C.Duration == Duration {
    let saves = Saves()
    let (observer, triggers) = savingObserver(saving, saves: saves, then: observer)
    let handle = start(
      with: context, id: id, chart: chart, stepLimit: stepLimit, clock: clock,
      isLogged: isLogged, observer: observer, isolation: isolation)
    return DurableRunHandle.saving(handle, to: store, triggers: triggers, saves: saves)
  }

  /// Starts a logged run with `context` that saves its snapshots to `store`:
  /// `start(with:id:chart:store:saving:stepLimit:clock:isLogged:observer:isolation:)` with
  /// the run's log kept as `log` says (a sink, such as a `RunLogFile`, takes each line as
  /// it happens).
  ///
  /// - Parameters:
  ///   - context: The run's context.
  ///   - id: The run's id; a new one by default.
  ///   - chart: The chart's identity, which stays the same across its versions: a snapshot
  ///     is resumed only on a chart given the same identity.
  ///   - store: Where the run's snapshots go.
  ///   - saving: When the run saves: `RunSaving.whenItRests` by default.
  ///   - stepLimit: The most states the run may enter; the chart's default when `nil`.
  ///   - clock: The clock of the run's events, timeouts and backoffs, and of the
  ///     wall-clock time of its snapshots.
  ///   - log: How many lines the handle's log keeps, and the sink that takes each line.
  ///   - observer: Called with each event as it happens.
  ///   - isolation: The actor the run's synchronous stretches run on; the caller's by
  ///     default.
  /// - Returns: The run, saving; hold it while it runs (see `DurableRunHandle`).
  public func start<C: Clock>(
    with context: Context, id: RunID = RunID(), chart: String, store: some RunStore,
    saving: RunSaving = .whenItRests, stepLimit: Int? = nil, clock: C = ContinuousClock(),
    log: RunLog.Options, observer: RunObserver? = nil,
    isolation: isolated (any Actor)? = #isolation
  ) -> DurableRunHandle<Context> where C.Duration == Duration {
    let saves = Saves()
    let (observer, triggers) = savingObserver(saving, saves: saves, then: observer)
    let handle = start(
      with: context, id: id, chart: chart, stepLimit: stepLimit, clock: clock, log: log,
      observer: observer, isolation: isolation)
    return DurableRunHandle.saving(handle, to: store, triggers: triggers, saves: saves)
  }

  /// Resumes the run saved in `store` under `id`, saving its snapshots there again at the
  /// boundaries `saving` chooses: in this process or in another, after a restart.
  ///
  /// A run that waited for input waits again at its waiting state: send it the value by
  /// the state's name with the handle's `send(_:to:)`.
  ///
  /// ```swift
  /// for run in try await store.list(matching: .waitingForInput(at: "Approve")) {
  ///   let resumed = try await chart.start(resuming: run.id, in: store, chart: "orders")
  ///   try resumed.send(true, to: "Approve")
  ///   _ = try await resumed.rested()  // finished, saved
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - id: The run's id in `store`.
  ///   - store: Where the run was saved, and where it saves again.
  ///   - chart: The chart's identity; a run of another chart is refused.
  ///   - migrating: Old position keys mapped to new ones (see
  ///     `start(resuming:chart:migrating:clock:isPaused:isLogged:observer:isolation:)`).
  ///   - saving: When the run saves.
  ///   - clock: The clock of the run's events, timeouts and backoffs, and of the
  ///     wall-clock time of its snapshots.
  ///   - isLogged: Whether the run keeps a log (the handle's `log`).
  ///   - observer: Called with each event as it happens.
  ///   - isolation: The actor the run's synchronous stretches run on; the caller's by
  ///     default.
  /// - Throws: A `StoredSnapshotError` when the store holds no such run, holds a run of
  ///   another chart, or holds a snapshot that does not decode; a `ResumeError` when the
  ///   snapshot does not fit the chart (each position that no longer does, and why); the
  ///   store's error when it cannot read. Nothing is started then, and the store is left as
  ///   it was.
  public func start<C: Clock>(
    resuming id: RunID, in store: some RunStore, chart: String,
    migrating: [String: String] = [:], saving: RunSaving = .whenItRests,
    clock: C = ContinuousClock(), isLogged: Bool = false, observer: RunObserver? = nil,
    isolation: isolated (any Actor)? = #isolation
  ) async throws -> DurableRunHandle<Context> where C.Duration == Duration {
    let snapshot = try await store.snapshot(id, as: Context.self, chart: chart)
    let saves = Saves()
    let (observer, triggers) = savingObserver(saving, saves: saves, then: observer)
    let handle = try start(
      resuming: snapshot, chart: chart, migrating: migrating, clock: clock,
      isLogged: isLogged, observer: observer, isolation: isolation)
    return DurableRunHandle.saving(handle, to: store, triggers: triggers, saves: saves)
  }

  /// Resumes the run saved in `store` under `id`, logged:
  /// `start(resuming:in:chart:migrating:saving:clock:isLogged:observer:isolation:)` with
  /// the resumed run's log kept as `log` says (a sink, such as a `RunLogFile`, takes each
  /// line as it happens). The log starts where the run goes on: what the run did before it
  /// was saved is in the log of the process that ran it.
  ///
  /// - Parameters:
  ///   - id: The run's id in `store`.
  ///   - store: Where the run was saved, and where it saves again.
  ///   - chart: The chart's identity; a run of another chart is refused.
  ///   - migrating: Old position keys mapped to new ones.
  ///   - saving: When the run saves.
  ///   - clock: The clock of the run's events, timeouts and backoffs, and of the
  ///     wall-clock time of its snapshots.
  ///   - log: How many lines the handle's log keeps, and the sink that takes each line.
  ///   - observer: Called with each event as it happens.
  ///   - isolation: The actor the run's synchronous stretches run on; the caller's by
  ///     default.
  /// - Throws: As `start(resuming:in:chart:migrating:saving:clock:isLogged:observer:isolation:)`
  ///   does; nothing is started then.
  public func start<C: Clock>(
    resuming id: RunID, in store: some RunStore, chart: String,
    migrating: [String: String] = [:], saving: RunSaving = .whenItRests,
    clock: C = ContinuousClock(), log: RunLog.Options, observer: RunObserver? = nil,
    isolation: isolated (any Actor)? = #isolation
  ) async throws -> DurableRunHandle<Context> where C.Duration == Duration {
    let snapshot = try await store.snapshot(id, as: Context.self, chart: chart)
    let saves = Saves()
    let (observer, triggers) = savingObserver(saving, saves: saves, then: observer)
    let handle = try start(
      resuming: snapshot, chart: chart, migrating: migrating, clock: clock, log: log,
      observer: observer, isolation: isolation)
    return DurableRunHandle.saving(handle, to: store, triggers: triggers, saves: saves)
  }
}
