extension Flowchart {
  /// Runs the chart with `context` from its start, timing its states' timeouts and retry
  /// delays with `clock`.
  ///
  /// The same run as ``run(with:stepLimit:isolation:)``; only states with a
  /// ``FlowComponent/timeout(_:fileID:line:)`` or a retry ``Backoff`` that waits read the
  /// clock. A test passes a clock it advances itself (FlowchartTesting's `TestClock`), so it
  /// never waits for real time:
  ///
  /// ```swift
  /// let clock = TestClock()
  /// async let result = chart.run(with: context, clock: clock)
  /// try await clock.waitForSleepers()
  /// clock.advance(by: .seconds(5))  // the state times out
  /// ```
  ///
  /// - Parameters:
  ///   - context: The value the states read and change.
  ///   - stepLimit: As for ``run(with:stepLimit:isolation:)``.
  ///   - clock: The clock of the timeouts and backoff delays.
  ///   - isolation: The actor the synchronous states run on, as for
  ///     ``run(with:stepLimit:isolation:)``.
  public func run<C: Clock>(
    with context: Context, stepLimit: Int? = nil, clock: C,
    isolation: isolated (any Actor)? = #isolation
  ) async throws(RunError) -> RunResult<Context> where C.Duration == Duration {
    let outcome = await RunClock.$current.withValue(RunClock(clock)) {
      () async -> Result<RunResult<Context>, RunError> in
      do throws(RunError) {
        return .success(try await run(with: context, stepLimit: stepLimit, isolation: isolation))
      } catch {
        return .failure(error)
      }
    }
    return try outcome.get()
  }
}
