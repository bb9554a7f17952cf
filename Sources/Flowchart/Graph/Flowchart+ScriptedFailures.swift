// Scripting: the failures and timeouts a script forces. A forced failure throws a
// `ScriptedFailure` or the state's `StateTimeoutError`, and the state's modifiers, kept in the
// scripted chart, take it: the retry without waiting, only the catch route it names.

extension Flowchart {
  /// The modifiers of a forced state, as the scripted chart runs them: a ``ScriptedFailure``
  /// passes its retry's filter, and only the catch route it is for takes it (other errors
  /// meet the filters as written); the retry does not wait between attempts, since forced
  /// attempts fail at once; and the timeout goes when the state's own code does not run
  /// (forced code returns at once, and a forced timeout throws its error itself).
  func scriptedModifiers(_ modifiers: StateModifiers, keepsTimeout: Bool) -> StateModifiers {
    var values = ModifierValues(modifiers)
    if !keepsTimeout { values.timeout = nil }
    if var retry = values.retry {
      let filter = retry.filter
      retry.filter = { error in error is ScriptedFailure || filter(error) }
      retry.backoff = .immediate
      values.retry = retry
    }
    values.catches = values.catches.enumerated().map { position, route in
      var route = route
      let filter = route.filter
      route.filter = { error in
        guard let forced = error as? ScriptedFailure else { return filter(error) }
        return (forced.catchRoute ?? 0) == position
      }
      return route
    }
    return StateModifiers(values)
  }

  /// What a script may force on the modified state `state`: its timeout, retries and catch
  /// routes; `nil` for a state without modifiers.
  package func scriptableModifiers(of state: StateID) -> ScriptableModifiers? {
    guard graph.records.indices.contains(state.index) else { return nil }
    let node = graph.nodes[state.index]
    guard node.kind == .modified else { return nil }
    let code = ModifiedCode.of(node)
    let modifiers = code.modifiers
    let timeoutError = modifiers.timeout.map {
      StateTimeoutError(stateName: graph.records[state.index].name, limit: $0)
    }
    return ScriptableModifiers(
      timeout: modifiers.timeout, retries: modifiers.retry?.count ?? 0,
      retriesTimeouts: timeoutError.map { error in
        modifiers.retry.map { $0.count > 0 && $0.filter(error) } ?? false
      } ?? false,
      catchTargets: code.catchTargets.map(StateID.init),
      catchesOnlyTimeouts: modifiers.catches.map {
        $0.errorType == String(describing: StateTimeoutError.self)
      },
      timeoutCatch: timeoutError.flatMap { error in
        modifiers.catches.firstIndex(where: { $0.filter(error) })
      })
  }

  /// The error an attempt of the state `index` throws for `failure`.
  func forcedError(
    _ failure: ForcedFailure, at index: Int, modifiers: StateModifiers?
  ) throws(ScriptProblem) -> any Error {
    let record = graph.records[index]
    let state = "\(record.kind) \(DisplayText.quoted(name: record.name)) (\(record.location))"
    switch failure {
    case .timeout:
      guard let limit = modifiers?.timeout else {
        throw ScriptProblem(
          stateName: record.name,
          message:
            "A script cannot make \(state) time out: it has no timeout. Give the state a .timeout(_:), or force a failure instead."
        )
      }
      return StateTimeoutError(stateName: record.name, limit: limit)
    case .error(let route):
      let count = modifiers?.catches.count ?? 0
      if let route, !(0..<count).contains(route) {
        throw ScriptProblem(
          stateName: record.name,
          message:
            "A script cannot send a failure of \(state) to its catch route \(route + 1): it has \(counted(count, "catch route")). Name one of those, or leave the route out."
        )
      }
      return ScriptedFailure(stateName: record.name, catchRoute: route)
    }
  }
}
