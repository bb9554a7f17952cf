extension Flowchart {
  /// Runs the chart with `context` from its start until a final state.
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
  /// The run's synchronous states run on the caller's actor, `isolation`: called from the
  /// main actor, they may update the interface; called from code that is not isolated to an
  /// actor, they run on the global concurrent executor, as the rest of the run does. The
  /// closures of asynchronous states run on the global concurrent executor whatever the
  /// caller (they are `nonisolated` `async` closures), and a dispatch's branches run in child
  /// tasks, concurrently, on the global concurrent executor; see
  /// <doc:RunningFlowcharts#Isolation-where-your-code-runs> for every kind of state.
  ///
  /// Cancelling the calling task cancels the run: the run checks at every state boundary,
  /// including after its last state returns, and the asynchronous state in progress sees
  /// `Task.isCancelled`. A run whose task was cancelled before the run ended throws a
  /// ``RunError`` of kind ``RunError/Kind/cancelled``, whatever its state did after the
  /// cancellation (returned, threw an error of its own, or awaited another run that was
  /// cancelled with it); the kind's documentation states the rule in full.
  ///
  /// - Parameters:
  ///   - context: The value the states read and change.
  ///   - stepLimit: The most states the run may enter before it fails with
  ///     ``RunError/Kind/stepLimitExceeded``; each dispatch branch is held to the same
  ///     limit, and its states count toward its parent flow when it joins. `nil` for no
  ///     limit; a negative limit is a ``RunError/Kind/invalidStepLimit`` error.
  ///   - isolation: The actor the synchronous states run on: by default the caller's
  ///     (`#isolation`), or `nil` when the caller is not isolated to an actor.
  /// - Returns: The final state, its decision, the final context and the path.
  /// - Throws: A ``RunError`` naming the state where the run stopped, the path that led
  ///   there and the cause.
  @inlinable
  public func run(
    with context: Context, stepLimit: Int? = nil,
    isolation: isolated (any Actor)? = #isolation
  ) async throws(RunError) -> RunResult<Context> {
    try await run(from: startIndex, with: context, stepLimit: stepLimit)
  }

  /// Runs the chart with `context` from the top-level state `start`.
  ///
  /// The synchronous states run on `isolation`, the caller's actor by default, as for
  /// ``run(with:stepLimit:isolation:)``.
  ///
  /// - Throws: A ``RunError`` of kind ``RunError/Kind/unknownStartState`` when `start` is
  ///   not a state of the chart or is inside a dispatch branch, or any error
  ///   ``run(with:stepLimit:isolation:)`` throws.
  @inlinable
  public func run(
    with context: Context, startingAt start: StateID, stepLimit: Int? = nil,
    isolation: isolated (any Actor)? = #isolation
  ) async throws(RunError) -> RunResult<Context> {
    try await run(from: validatedStart(start), with: context, stepLimit: stepLimit)
  }

  /// Runs the chart with `context` from the top-level state named `name`.
  ///
  /// The synchronous states run on `isolation`, the caller's actor by default, as for
  /// ``run(with:stepLimit:isolation:)``.
  ///
  /// - Throws: A ``RunError`` of kind ``RunError/Kind/unknownStartState`` when `name`
  ///   names no top-level state or several, or any error ``run(with:stepLimit:isolation:)``
  ///   throws.
  public func run(
    with context: Context, startingAt name: String, stepLimit: Int? = nil,
    isolation: isolated (any Actor)? = #isolation
  ) async throws(RunError) -> RunResult<Context> {
    try await run(with: context, startingAt: startState(named: name), stepLimit: stepLimit)
  }

  @inlinable
  func run(
    from first: Int32, with context: Context, stepLimit: Int?,
    isolation: isolated (any Actor)? = #isolation
  ) async throws(RunError) -> RunResult<Context> {
    let interpreter = Interpreter(graph: graph, stepLimit: try validatedStepLimit(stepLimit))
    var context = context
    var cursor = Cursor<Context>(at: first, stepLimit: interpreter.stepLimit)
    let decision = try await interpreter.run(
      cursor: &cursor, context: &context, isolation: isolation)
    return result(cursor, decision, context: context)
  }

  /// Runs a chart whose states are all synchronous, without `await`.
  ///
  /// The run never suspends; a dispatch runs its branches one after another, in
  /// declaration order, and folds them back as a concurrent run would. Every state's code
  /// runs where the caller runs, on its actor if it has one. Use
  /// ``isSynchronous`` to know beforehand whether a chart qualifies.
  ///
  /// ```swift
  /// let result = try chart.runSynchronously(with: Launch(isFirstLaunch: true))
  /// ```
  ///
  /// Called from a task, the run follows the cancellation rule of ``run(with:stepLimit:isolation:)``
  /// where it costs nothing per step: it checks whether its task was cancelled before its
  /// first state, at each dispatch, after the last state of each flow returns, when a
  /// state throws, and at least once every 4,096 states (see ``RunError/Kind/cancelled``).
  ///
  /// - Parameters:
  ///   - context: The value the states read and change.
  ///   - stepLimit: The most states the run may enter; `nil` for no limit.
  /// - Throws: A ``RunError``; of kind ``RunError/Kind/asynchronousState``, before any
  ///   state runs, when the chart has an asynchronous state.
  @inlinable
  public func runSynchronously(
    with context: Context, stepLimit: Int? = nil
  ) throws(RunError) -> RunResult<Context> {
    try runSynchronously(from: startIndex, with: context, stepLimit: stepLimit)
  }

  /// Runs a synchronous chart with `context` from the top-level state `start`.
  ///
  /// - Throws: A ``RunError`` of kind ``RunError/Kind/unknownStartState`` when `start` is
  ///   not a state of the chart or is inside a dispatch branch, or any error
  ///   ``runSynchronously(with:stepLimit:)`` throws.
  @inlinable
  public func runSynchronously(
    with context: Context, startingAt start: StateID, stepLimit: Int? = nil
  ) throws(RunError) -> RunResult<Context> {
    try runSynchronously(from: validatedStart(start), with: context, stepLimit: stepLimit)
  }

  /// Runs a synchronous chart with `context` from the top-level state named `name`.
  ///
  /// - Throws: A ``RunError`` of kind ``RunError/Kind/unknownStartState`` when `name`
  ///   names no top-level state or several, or any error
  ///   ``runSynchronously(with:stepLimit:)`` throws.
  public func runSynchronously(
    with context: Context, startingAt name: String, stepLimit: Int? = nil
  ) throws(RunError) -> RunResult<Context> {
    try runSynchronously(with: context, startingAt: startState(named: name), stepLimit: stepLimit)
  }

  @inlinable
  func runSynchronously(
    from first: Int32, with context: Context, stepLimit: Int?
  ) throws(RunError) -> RunResult<Context> {
    let limit = try validatedStepLimit(stepLimit)
    guard isSynchronous else { throw asynchronousChartError() }
    let interpreter = Interpreter(graph: graph, stepLimit: limit)
    var context = context
    var cursor = Cursor<Context>(at: first, stepLimit: interpreter.stepLimit)
    let decision = try interpreter.runSynchronously(cursor: &cursor, context: &context)
    return result(cursor, decision, context: context)
  }

  /// Runs the chart from its start and returns only how the run ended, without the path
  /// a ``RunResult`` copies out: what a subflow and each element of a map need.
  @inlinable
  func runToEnd(
    with context: Context, stepLimit: Int?
  ) async throws(RunError) -> (context: Context, decision: Decision, finalState: Int32) {
    let interpreter = Interpreter(graph: graph, stepLimit: try validatedStepLimit(stepLimit))
    var context = context
    var cursor = Cursor<Context>(at: startIndex, stepLimit: interpreter.stepLimit)
    let decision = try await interpreter.run(cursor: &cursor, context: &context)
    return (context, decision, cursor.state)
  }

  /// ``runToEnd(with:stepLimit:)``, synchronously.
  @inlinable
  func runToEndSynchronously(
    with context: Context, stepLimit: Int?
  ) throws(RunError) -> (context: Context, decision: Decision, finalState: Int32) {
    let limit = try validatedStepLimit(stepLimit)
    guard isSynchronous else { throw asynchronousChartError() }
    let interpreter = Interpreter(graph: graph, stepLimit: limit)
    var context = context
    var cursor = Cursor<Context>(at: startIndex, stepLimit: interpreter.stepLimit)
    let decision = try interpreter.runSynchronously(cursor: &cursor, context: &context)
    return (context, decision, cursor.state)
  }

  /// The chart's start, as the interpreter numbers states.
  @usableFromInline
  var startIndex: Int32 { graph.start }

  private func startState(named name: String) throws(RunError) -> StateID {
    let matches = graph.names.states(named: name)
    guard matches.count == 1 else {
      let problem =
        matches.isEmpty
        ? "no state has that name"
        : "\(counted(matches.count, "state")) have that name; rename them so the start is unambiguous"
      throw unknownStart(
        name, "A run cannot start at \(DisplayText.quoted(name: name)): \(problem).")
    }
    return StateID(matches[0])
  }

  @usableFromInline
  func validatedStart(_ start: StateID) throws(RunError) -> Int32 {
    guard graph.records.indices.contains(start.index) else {
      throw unknownStart(
        "\(start)",
        "A run cannot start at \(start): the chart has \(counted(graph.records.count, "state")). Pass an ID from this chart, such as one `state(named:)` returns."
      )
    }
    let record = graph.records[start.index]
    guard record.flow == 0 else {
      throw unknownStart(
        record.name,
        "A run cannot start at \(DisplayText.quoted(name: record.name)): it is inside a dispatch branch. Start at the dispatch instead."
      )
    }
    return Int32(start.index)
  }

  /// The step limit as the interpreter takes it: `Int.max` for none.
  @usableFromInline
  func validatedStepLimit(_ stepLimit: Int?) throws(RunError) -> Int {
    guard let stepLimit else { return .max }
    guard stepLimit >= 0 else {
      throw RunError(
        .invalidStepLimit, state: nil, stateName: "", path: [], pathNames: [],
        reason:
          "A run cannot have a step limit of \(counted(stepLimit, "state")): pass 0 or more for the most states the run may enter, or nil for no limit."
      )
    }
    return stepLimit
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
    _ cursor: borrowing Cursor<Context>, _ decision: Decision, context: Context
  ) -> RunResult<Context> {
    RunResult(
      finalState: StateID(cursor.state), finalStateName: graph.records[Int(cursor.state)].name,
      decision: decision, context: context, path: cursor.path.states.map(StateID.init),
      stepCount: cursor.path.count, graph: graph)
  }
}
