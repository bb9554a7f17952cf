// The run errors every loop throws, and their words: a state's code that threw, a
// cancellation, a step limit, a branch's failure seen from the flow that dispatched it.

extension Interpreter {
  /// The error of a run cancelled before entering `state`, or (`finished`) while in it, when
  /// `state` was final and then finished.
  @usableFromInline
  func cancellationError(
    at state: Int32, path: borrowing PathRecorder, finished: Bool = false
  ) -> RunError {
    error(
      .cancelled, at: state, path: path,
      reason: finished
        ? "The run was cancelled while in \(describe(state)), which then finished."
        : "The run was cancelled before entering \(describe(state)).")
  }

  /// The error of a run that exceeded its step limit before entering `state`, or (`atJoin`)
  /// when the branches of the dispatch `state`, joined to its flow's path, exceed it.
  @usableFromInline
  func stepLimitError(
    at state: Int32, path: borrowing PathRecorder, atJoin: Bool = false
  ) -> RunError {
    let limit = "The run exceeded its step limit of \(counted(stepLimit, "state"))"
    return error(
      .stepLimitExceeded, at: state, path: path,
      reason: atJoin
        ? "\(limit) when the branches of \(describe(state)) joined: with them it entered \(counted(path.count, "state")). Raise the limit, or shorten the branches."
        : "\(limit) before entering \(describe(state)). A cycle may never reach a final state, or the limit may be too low."
    )
  }

  /// The error of an inner run (a subflow's or a map element's) that failed at `state`: the
  /// inner error's kind, and its story after `failed`, inside this one's, with the inner
  /// path named as the path in `pathIn`.
  private func nested(
    _ inner: RunError, at state: Int32, path: borrowing PathRecorder, failed: String,
    pathIn: String
  ) -> RunError {
    error(
      inner.kind, at: state, path: path, underlyingError: inner,
      unmatchedKey: inner.unmatchedKey,
      reason:
        "The run stopped at \(describe(state))\(failed): \(inner.reason) (Path in \(pathIn): \(Self.route(of: inner)).)"
    )
  }

  /// A branch's error, with the paths of the flows that dispatched it before its own,
  /// outermost first, keeping only the most recent ``RunResult/pathCapacity`` states.
  ///
  /// `cancelled` says whether the dispatching flow was cancelled; a branch failure that
  /// is not a cancellation then becomes one, its cause kept.
  @usableFromInline
  func branchFailure(_ error: RunError, after prefixes: [[Int32]], cancelled: Bool) -> RunError {
    let capacity = RunResult<Context>.pathCapacity
    var states: [Int32] = []
    var needed = capacity - error.path.count
    for prefix in prefixes.reversed() where needed > 0 {
      states.insert(contentsOf: prefix.suffix(needed), at: 0)
      needed -= min(needed, prefix.count)
    }
    let prefix = states.map(StateID.init)
    var joined = error.prefixed(
      by: prefix, names: states.map { graph.records[Int($0)].name }, capacity: capacity)
    if cancelled && joined.kind != .cancelled {
      joined = joined.cancelled(
        reason: "The run was cancelled while its branches ran. \(joined.reason)")
    }
    return joined
  }

  /// The run error for an error thrown by a state's code (or a merge). A run whose task
  /// was cancelled ends cancelled, whatever the state threw; the thrown error is kept.
  @usableFromInline
  func failure(
    _ thrown: any Error, at state: Int32, path: borrowing PathRecorder, control: RunControl
  ) -> RunError {
    let cancelled = control.isCancelled || Task.isCancelled
    if let unmatched = thrown as? UnmatchedKey {
      let reason =
        "\(describe(state).capitalizedFirst) decided the key \(DisplayText.quoted(key: unmatched.key)), which has no exit. Add a Case for it, or a Default."
      return error(
        cancelled ? .cancelled : .unmatchedKey, at: state, path: path,
        unmatchedKey: unmatched.key,
        reason: cancelled ? "The run was cancelled while in \(describe(state)). \(reason)" : reason)
    }
    if cancelled {
      let then =
        thrown is CancellationError ? "" : ", which then threw \(String(reflecting: thrown))"
      return error(
        .cancelled, at: state, path: path, underlyingError: thrown,
        reason: "The run was cancelled while in \(describe(state))\(then).")
    }
    if let inner = thrown as? RunError {
      // A subflow's chart failed.
      return nested(
        inner, at: state, path: path, failed: ", whose chart failed", pathIn: "the subflow")
    }
    if let failure = thrown as? MapElementFailure {
      return nested(
        failure.error, at: state, path: path,
        failed:
          ": the run for element \(failure.index) (of \(failure.elementCount), counted from 0) failed",
        pathIn: "that run")
    }
    if let problem = thrown as? SubflowWithoutYesOrNo {
      return error(
        .thrown, at: state, path: path, underlyingError: thrown,
        reason: "The run stopped at \(describe(state)): \(problem)")
    }
    // An error of the package's own is the cause itself, told as a clause; anything else is
    // what the state's code threw.
    let cause =
      (thrown as? any SelfExplainingError)?.description
      ?? "it threw \(String(reflecting: thrown))"
    return error(
      .thrown, at: state, path: path, underlyingError: thrown,
      reason: "The run stopped at \(describe(state)): \(cause).")
  }

  /// The names of an inner run's path, as a message shows them.
  private static func route(of inner: RunError) -> String {
    let route = inner.pathNames.map(DisplayText.name).joined(separator: " → ")
    return route.isEmpty ? "(no state entered)" : route
  }

  @usableFromInline
  func asynchronousStateError(_ state: Int32, path: borrowing PathRecorder) -> RunError {
    if let waiting = waitingModifiersError(state, path: path) { return waiting }
    // A waiting state cannot be made synchronous: only a live run can send it its value.
    let advice =
      switch graph.records[Int(state)].kind.code {
      case .waiting:
        "waits for a value sent from outside, so the chart cannot run synchronously: start a live run with `chart.start(with:)` and send the value with `handle.send(_:to:)`."
      case .delay:
        "waits for a time, so the chart cannot run synchronously: use `try await chart.run(with:)` (give it a `clock:` to control the time), or a live run with `chart.start(with:)`."
      case .condition, .multipleCondition, .action, .dispatch, .subflow, .map:
        "is asynchronous, so the chart cannot run synchronously. Use `try await chart.run(with:)`, or make the state's code synchronous."
      }
    return error(
      .asynchronousState, at: state, path: path,
      reason: "\(describe(state).capitalizedFirst) \(advice)")
  }

  @usableFromInline
  func error(
    _ kind: RunError.Kind, at state: Int32, path: borrowing PathRecorder,
    underlyingError: (any Error)? = nil, unmatchedKey: (any Hashable & Sendable)? = nil,
    reason: String
  ) -> RunError {
    let states = path.states
    return RunError(
      kind, state: StateID(state), stateName: graph.records[Int(state)].name,
      path: states.map(StateID.init), pathNames: states.map { graph.records[Int($0)].name },
      underlyingError: underlyingError, unmatchedKey: unmatchedKey, reason: reason)
  }

  /// `action 'Fetch' (App/File.swift:12)`.
  private func describe(_ state: Int32) -> String {
    let record = graph.records[Int(state)]
    return "\(record.kind) \(DisplayText.quoted(name: record.name)) (\(record.location))"
  }
}

extension String {
  var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
