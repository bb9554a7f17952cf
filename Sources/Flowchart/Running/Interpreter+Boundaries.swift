// State boundaries: what every loop does after a state's exit is chosen and before the next
// state is entered (read the run control's flags, record the state in the path, which
// enforces the step limit), and after a flow's final state. ``Interpreter/enter(_:path:flow:control:)``
// and its two cheaper forms for runs whose flags nothing or only a cancellation raises; pause,
// events and snapshots attach in their slow paths.

extension Interpreter {
  /// The boundary before `state`: reads the control's flags, checks the step limit, then
  /// records `state` as entered.
  ///
  /// - Returns: `false`, with nothing recorded, when the run is paused: the caller waits
  ///   (the asynchronous loop) or hands the boundary to the loop that can (the synchronous
  ///   one), then comes back. `true` once `state` is entered.
  @inlinable @inline(__always)
  func enter(
    _ state: Int32, path: inout PathRecorder, flow: Int32, control: RunControl
  ) throws(RunError) -> Bool {
    let flags = control.flags
    if _slowPath(flags.rawValue & RunControl.Flags.attention.rawValue != 0) {
      guard try enterWithFlags(flags, state, path: path, flow: flow, control: control) else {
        return false
      }
    } else if _slowPath(flags.contains(.parks)) {
      // A live run's top-level flow whose events nobody reads: its position is all the
      // boundary records, for the run to read when asked (`LiveRun.settlePositions`).
      control.position.store(Int(state), ordering: .relaxed)
    }
    if _slowPath(path.isAtCheckpoint) {
      try enterAtCheckpoint(state, path: &path)
    } else {
      path.recordBeforeCheckpoint(state)
    }
    return true
  }

  /// ``enter(_:path:flow:control:)`` for a run nobody observes, whose only flag is
  /// ``RunControl/Flags/cancelled``: nothing to return, so the fast path tests nothing more.
  @inlinable @inline(__always)
  func enterUnobserved(
    _ state: Int32, path: inout PathRecorder, control: RunControl
  ) throws(RunError) {
    if _slowPath(control.flags.rawValue != 0) {
      throw cancellationError(at: state, path: path)
    }
    if _slowPath(path.isAtCheckpoint) {
      try enterAtCheckpoint(state, path: &path)
    } else {
      path.recordBeforeCheckpoint(state)
    }
  }

  /// ``enter(_:path:flow:control:)`` for a synchronous run, whose control is
  /// ``RunControl/inert``: nothing raises its flags, so the boundary reads none and only
  /// records the state (a synchronous run asks its task at the path's checkpoints).
  ///
  /// `asksTask` is `false` for a nested run (see ``Nested``), which does not ask its task at
  /// its first state: the outer run's boundaries do.
  @inlinable @inline(__always)
  func enterUncontrolled(
    _ state: Int32, path: inout PathRecorder, asksTask: Bool = true
  ) throws(RunError) {
    if _slowPath(path.isAtCheckpoint) {
      if asksTask || path.count != 0 {
        try enterAtCheckpoint(state, path: &path)
      } else if !path.recordSlowly(state) {
        throw stepLimitError(at: state, path: path)
      }
    } else {
      path.recordBeforeCheckpoint(state)
    }
  }

  /// The boundary before `state` when a flag is raised: a cancelled run stops, a paused
  /// one waits (the caller does), a reporting one reports the state.
  @usableFromInline @inline(never)
  func enterWithFlags(
    _ flags: RunControl.Flags, _ state: Int32, path: borrowing PathRecorder, flow: Int32,
    control: RunControl
  ) throws(RunError) -> Bool {
    if flags.contains(.cancelled) { throw cancellationError(at: state, path: path) }
    if flags.contains(.paused) { return false }
    // The top-level flow of a live run keeps its position in its control's word whether its
    // events are read or not: a run read only by subscribers takes it from there
    // (`LiveRun.settlePositions`), as does one nobody reads.
    if flags.contains(.parks) { control.position.store(Int(state), ordering: .relaxed) }
    control.monitor?.entered(state, flow: flow)
    return true
  }

  /// Waits at the boundary before `state` while the run is paused; a cancelled task stops
  /// waiting, and the run stops there. A flow of a live run leaves its position and
  /// `context` with the run while it waits, for a snapshot, and is held there while a
  /// snapshot waits for the run's other flows (see `LiveRun+Snapshot.swift`).
  @usableFromInline
  func waitWhilePaused(
    before state: Int32, path: borrowing PathRecorder, context: borrowing Context, flow: Int32,
    control: RunControl
  ) async throws(RunError) {
    let left = leavePosition(
      before: state, path: path, context: context, flow: flow, control: control)
    if left { await holdForSnapshot(flow: flow, control: control) }
    await control.monitor?.waitWhilePaused(before: state, flow: flow, tookPosition: left)
    if control.isCancelled || Task.isCancelled {
      throw cancellationError(at: state, path: path)
    }
  }

  /// The boundary before `state` when the path recorder is at a checkpoint: when the flow
  /// starts, while its path's ring grows, at its step limit, and every
  /// ``PathRecorder/checkInterval`` states after that.
  ///
  /// A synchronous run has no cancellation handler to raise its control, so it asks its
  /// task here: a cancelled synchronous run stops within that many states.
  @usableFromInline @inline(never)
  func enterAtCheckpoint(_ state: Int32, path: inout PathRecorder) throws(RunError) {
    if Task.isCancelled {
      throw cancellationError(at: state, path: path)
    }
    if !path.recordSlowly(state) {
      throw stepLimitError(at: state, path: path)
    }
  }

  /// The boundary after a flow's final state: a run whose task was cancelled while its last
  /// state ran ends cancelled, even though the state returned.
  @inlinable @inline(__always)
  func endFlow(at state: Int32, path: borrowing PathRecorder, control: RunControl) throws(RunError)
  {
    if _slowPath(control.isCancelled || Task.isCancelled) {
      throw cancellationError(at: state, path: path, finished: true)
    }
  }
}
