extension Flowchart {
  /// Runs the chart with `context`, from its start or from `start`, until a final state.
  ///
  /// Each state's code gets the context `inout`. Synchronous states run back to back
  /// without suspending; the run awaits asynchronous states, and runs each dispatch's
  /// branches as concurrent child tasks.
  ///
  /// ```swift
  /// let result = try await chart.run(with: Health(isWillingToExercise: false))
  /// print(result.finalStateName, result.decision)  // Injured? no
  /// ```
  ///
  /// Cancelling the calling task stops the run before its next state, and reaches the
  /// asynchronous state in progress through `Task.isCancelled`.
  ///
  /// - Parameters:
  ///   - context: The value the states read and change.
  ///   - start: A top-level state to start at instead of ``start``.
  ///   - stepLimit: The most states the run may enter before it fails with
  ///     ``RunError/Kind/stepLimitExceeded``; each dispatch branch is held to the same
  ///     limit, and its states count toward its parent flow once it joins. `nil` for no
  ///     limit.
  /// - Returns: The final state, its decision, the final context and the path.
  /// - Throws: A ``RunError`` naming the state where the run stopped, the path that led
  ///   there and the cause.
  @inlinable
  public func run(
    with context: Context, startingAt start: StateID? = nil, stepLimit: Int? = nil
  ) async throws(RunError) -> RunResult<Context> {
    let first = try validatedStart(start)
    let interpreter = Interpreter(graph: graph, stepLimit: stepLimit ?? .max)
    var context = context
    var path = PathRecorder(limit: interpreter.stepLimit)
    let end = try await interpreter.run(from: first, context: &context, path: &path)
    return result(end, context: context, path: path)
  }

  /// Runs the chart with `context` from the top-level state named `name`.
  ///
  /// - Throws: A ``RunError`` of kind ``RunError/Kind/unknownStartState`` when `name`
  ///   names no top-level state or several, or any error
  ///   ``run(with:startingAt:stepLimit:)-(_,StateID?,_)`` throws.
  public func run(
    with context: Context, startingAt name: String, stepLimit: Int? = nil
  ) async throws(RunError) -> RunResult<Context> {
    try await run(with: context, startingAt: startState(named: name), stepLimit: stepLimit)
  }

  /// Runs a chart whose states are all synchronous, without `await`.
  ///
  /// The run never suspends; a dispatch runs its branches one after another, in
  /// declaration order, and folds them back as a concurrent run would. Use
  /// ``isSynchronous`` to know beforehand whether a chart qualifies.
  ///
  /// ```swift
  /// let result = try chart.runSynchronously(with: Launch(isFirstLaunch: true))
  /// ```
  ///
  /// - Parameters:
  ///   - context: The value the states read and change.
  ///   - start: A top-level state to start at instead of ``start``.
  ///   - stepLimit: The most states the run may enter; `nil` for no limit.
  /// - Throws: A ``RunError``; of kind ``RunError/Kind/asynchronousState``, before any
  ///   state runs, when the chart has an asynchronous state.
  @inlinable
  public func runSynchronously(
    with context: Context, startingAt start: StateID? = nil, stepLimit: Int? = nil
  ) throws(RunError) -> RunResult<Context> {
    let first = try validatedStart(start)
    guard isSynchronous else { throw asynchronousChartError() }
    let interpreter = Interpreter(graph: graph, stepLimit: stepLimit ?? .max)
    var context = context
    var path = PathRecorder(limit: interpreter.stepLimit)
    let end = try interpreter.runSynchronously(from: first, context: &context, path: &path)
    return result(end, context: context, path: path)
  }

  /// Runs a synchronous chart with `context` from the top-level state named `name`.
  ///
  /// - Throws: A ``RunError`` of kind ``RunError/Kind/unknownStartState`` when `name`
  ///   names no top-level state or several, or any error
  ///   ``runSynchronously(with:startingAt:stepLimit:)-(_,StateID?,_)`` throws.
  public func runSynchronously(
    with context: Context, startingAt name: String, stepLimit: Int? = nil
  ) throws(RunError) -> RunResult<Context> {
    try runSynchronously(with: context, startingAt: startState(named: name), stepLimit: stepLimit)
  }

  private func startState(named name: String) throws(RunError) -> StateID {
    let matches = graph.names.states(named: name)
    guard matches.count == 1 else {
      let problem =
        matches.isEmpty
        ? "no state has that name"
        : "\(matches.count) states have that name; rename them so the start is unambiguous"
      throw unknownStart(name, "A run cannot start at '\(name)': \(problem).")
    }
    return StateID(matches[0])
  }

  @usableFromInline
  func validatedStart(_ start: StateID?) throws(RunError) -> Int32 {
    guard let start else { return graph.start }
    guard graph.records.indices.contains(start.index) else {
      throw unknownStart(
        "\(start)", "A run cannot start at \(start): the chart has \(graph.records.count) states.")
    }
    let record = graph.records[start.index]
    guard record.flow == 0 else {
      throw unknownStart(
        record.name,
        "A run cannot start at '\(record.name)': it is inside a dispatch branch. Start at the dispatch instead."
      )
    }
    return Int32(start.index)
  }

  @usableFromInline
  func asynchronousChartError() -> RunError {
    let interpreter = Interpreter(graph: graph, stepLimit: .max)
    return interpreter.asynchronousStateError(
      graph.asynchronousStates[0], path: PathRecorder(limit: 0))
  }

  private func unknownStart(_ name: String, _ reason: String) -> RunError {
    RunError(
      .unknownStartState, state: nil, stateName: name, path: [], pathNames: [], reason: reason)
  }

  @usableFromInline
  func result(
    _ end: (state: Int32, decision: Decision), context: Context, path: borrowing PathRecorder
  ) -> RunResult<Context> {
    RunResult(
      finalState: StateID(end.state), finalStateName: graph.records[Int(end.state)].name,
      decision: end.decision, context: context, path: path.states.map(StateID.init),
      stepCount: path.count)
  }
}
