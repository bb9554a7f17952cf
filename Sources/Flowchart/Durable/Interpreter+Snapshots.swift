// What the run loop does for a live run's snapshots, out of line and only on the paths that
// wait: a flow leaves its position with the run at a pause wait, between two attempts and at
// a waiting state or a delay it runs in its task, takes it back as it goes on, and is held
// at a boundary until a snapshot asked for is taken (see `LiveRun+Snapshot.swift`).

extension TopLevelFlow {
  /// The parked flow's position: at the waiting state or the delay it entered.
  func captured(_ position: CapturedFlow<Context>.Position) -> CapturedFlow<Context>? {
    withParked { cursor, context in
      CapturedFlow(position, at: cursor.state, path: cursor.path, context: context)
    }
  }
}

extension Interpreter {
  /// A flow of a live run is about to wait at the boundary before `state` while the run is
  /// paused (or held for a snapshot): leaves its position with the run. Only on a pause
  /// wait's path.
  @usableFromInline @inline(never)
  func leavePosition(
    before state: Int32, path: borrowing PathRecorder, context: borrowing Context, flow: Int32,
    control: RunControl
  ) -> Bool {
    guard let live = control.monitor as? any SnapshotPositionKeeping else { return false }
    live.keepBoundary(
      CapturedFlow(.entering, at: state, path: path, context: copy context), flow: flow)
    return true
  }

  /// A flow of a live run, which left its position at a boundary, is held there until the
  /// snapshot asked for is taken (see `LiveRun+Snapshot.swift`).
  @usableFromInline @inline(never)
  func holdForSnapshot(flow: Int32, control: RunControl) async {
    await (control.monitor as? any SnapshotPositionKeeping)?.holdFlowForSnapshot(flow: flow)
  }

  /// A flow of a live run is between two attempts of `state`, before attempt `attempt`,
  /// whose backoff ends at `deadline`: leaves its position with the run (the context from
  /// before the state). Only on a retry's path.
  @inline(never)
  func leaveRetryPosition(
    at state: Int32, attempt: Int, until deadline: WallClockTime, path: borrowing PathRecorder,
    context: Context, flow: Int32, control: RunControl
  ) -> Bool {
    guard let live = control.monitor as? any SnapshotPositionKeeping else { return false }
    live.keepBoundary(
      CapturedFlow(
        .retrying(attempt: attempt, until: deadline), at: state, path: path, context: context),
      flow: flow)
    return true
  }

  /// A flow went on from the boundary (or the waiting state) where it left its position.
  @usableFromInline @inline(never)
  func tookPosition(flow: Int32, control: RunControl) {
    (control.monitor as? any SnapshotPositionKeeping)?.leftPosition(flow: flow)
  }

  /// A flow that left its position between two attempts goes on unless the run is paused:
  /// `true` when it does, its position taken back under the lock that decided it.
  @inline(never)
  func goesOn(flow: Int32, control: RunControl) -> Bool {
    guard let live = control.monitor as? any SnapshotPositionKeeping else {
      return !control.flags.contains(.paused)
    }
    return live.goesOn(flow: flow)
  }

  /// Runs the waiting state or delay `state`, which a flow of a live run that does not park
  /// (a dispatch branch) entered, in its task: leaves the flow's position (the context from
  /// before the state) with the run while the state's code runs, so that a snapshot holds
  /// the flow waiting there.
  @usableFromInline @inline(never)
  func runWaitingState(
    _ node: Node, at state: Int32, cursor: inout Cursor<Context>, context: inout Context,
    control: RunControl
  ) async throws(RunError) -> Outcome {
    let live = control.monitor as? any SnapshotPositionKeeping
    let flow = cursor.flow
    live?.enteredWaitingState(
      CapturedFlow(.waitingForInput, at: state, path: cursor.path, context: context)
        as any Sendable,
      flow: flow)
    defer { live?.leftPosition(flow: flow) }
    return try await runAsynchronous(
      node, at: state, cursor: &cursor, context: &context, control: control)
  }
}
