// Per-state modifiers: a timeout, retries with a backoff, and catch routes, in the spirit
// of AWS Step Functions' `TimeoutSeconds`, `Retry` and `Catch`.
//
// A modifier is a property of the declaration, not a kind of state: the methods below copy
// the state's declaration with its ``StateModifiers``, the compiler resolves the catch
// routes like `GoTo`s and points the state's node at a ``ModifiedCode`` (see
// `Compiling/Compiler+Modifiers.swift`), and the run loop hands such a node to one helper
// (`Running/Interpreter+Modifiers.swift`). A state without modifiers compiles exactly as
// before. A retry's `Backoff` is in `Backoff.swift`; what the declaration holds
// (`StateModifiers`) in `StateModifiers.swift`.

extension FlowComponent {
  /// Fails the state when its code has not returned within `limit`.
  ///
  /// At the deadline the state's code is cancelled (structured concurrency: its task sees
  /// `Task.isCancelled`, and `Task.sleep` and other cancellable waits throw), and the state
  /// fails with a ``StateTimeoutError``. The run waits for the code to return before it goes
  /// on: code that ignores cancellation delays the run until it returns, and what it did to
  /// the context is dropped. Synchronous code cannot be interrupted at all. A timeout
  /// applies to each attempt; a timed-out attempt can be retried (``retry(_:backoff:if:fileID:line:)``)
  /// and caught (``catch(goTo:fileID:line:_:)``) like any error. Uncaught, the run fails with a
  /// ``RunError`` of kind ``RunError/Kind/timedOut``.
  ///
  /// The limit is measured with the run's clock: a `ContinuousClock`, or the clock given to
  /// ``Flowchart/run(with:stepLimit:clock:isolation:)`` or
  /// ``Flowchart/start(with:stepLimit:clock:isPaused:isLogged:observer:isolation:)``. A state with a
  /// timeout needs an asynchronous run.
  ///
  /// ```swift
  /// Action("Fetch prices") { context in context.prices = try await api.prices() }
  ///   .timeout(.seconds(5))
  /// ```
  ///
  /// A limit of zero or less, or longer than 1,000,000,000 seconds (about 31 years, the
  /// longest wait chart files allow), is a ``DefinitionError/Kind/invalidModifier`` error:
  /// a clock cannot wait longer than some centuries, and no timeout is written by leaving
  /// the modifier out.
  ///
  /// - Parameters:
  ///   - limit: How long each attempt may take; more than zero, at most 1,000,000,000
  ///     seconds.
  ///   - fileID: The file of the modifier, for definition errors; keep the default.
  ///   - line: The line of the modifier, for definition errors; keep the default.
  public func timeout(
    _ limit: Duration, fileID: String = #fileID, line: Int = #line
  ) -> ModifiedState<Context> {
    ModifiedState(declaration, fileID: fileID, line: line) { modifiers in
      if modifiers.timeout != nil {
        modifiers.problems.append(
          "declares a second timeout (line \(line)). Keep one .timeout(_:).")
      } else if limit <= .zero {
        modifiers.problems.append(
          "has a timeout of \(ModifierText.duration(limit)) (line \(line)). Give a limit greater than zero."
        )
      } else if limit > Backoff.longestWait {
        modifiers.problems.append(
          "has a timeout of \(ModifierText.duration(limit)) (line \(line)), longer than the longest wait, \(Backoff.longestWaitText). Give a shorter limit, or leave the timeout out."
        )
      }
      modifiers.timeout = limit
    }
  }

  /// Runs the state's code again, up to `count` more times, when it throws an error that
  /// `shouldRetry` accepts.
  ///
  /// Each attempt runs the code on the context as it was before the first attempt: what a
  /// failed attempt changed is dropped. Before each retry the run waits as `backoff` says,
  /// by the run's clock. Every failed attempt and every retry is reported to a live run's
  /// events and log (``RunEvent/Kind/attemptFailed(_:reason:)``,
  /// ``RunEvent/Kind/retrying(_:after:)``); the state is entered once, whatever the number
  /// of attempts, so retries do not count toward the step limit. When the last attempt
  /// fails, the error goes to the state's catch routes, if any, and otherwise fails the run.
  /// A cancelled run is not retried.
  ///
  /// ```swift
  /// Action("Upload") { context in try await upload(context.photo) }
  ///   .retry(3, backoff: .exponential(initial: .milliseconds(100), maximum: .seconds(2)))
  /// ```
  ///
  /// A negative `count`, or a backoff whose values ``Backoff`` rejects, is a
  /// ``DefinitionError/Kind/invalidModifier`` error.
  ///
  /// - Parameters:
  ///   - count: How many times to retry after the first attempt; 0 or more (`Int.max`
  ///     retries for as long as the error lasts).
  ///   - backoff: How long to wait before each retry; no wait by default.
  ///   - shouldRetry: Which errors are worth retrying; all by default. A
  ///     ``StateTimeoutError`` is the error of an attempt that timed out.
  ///   - fileID: The file of the modifier, for definition errors; keep the default.
  ///   - line: The line of the modifier, for definition errors; keep the default.
  public func retry(
    _ count: Int, backoff: Backoff = .immediate,
    if shouldRetry: @escaping @Sendable (any Error) -> Bool = { _ in true },
    fileID: String = #fileID, line: Int = #line
  ) -> ModifiedState<Context> {
    addRetry(
      RetryRule(count: count, backoff: backoff, filter: shouldRetry, errorType: nil),
      fileID: fileID, line: line)
  }

  /// Runs the state's code again, up to `count` more times, when it throws an error of type
  /// `errorType` that `shouldRetry` accepts; other errors are not retried.
  ///
  /// ```swift
  /// Action("Upload") { context in try await upload(context.photo) }
  ///   .retry(2, on: NetworkError.self, backoff: .fixed(.seconds(1)))
  /// ```
  ///
  /// See ``retry(_:backoff:if:fileID:line:)`` for how attempts run.
  public func retry<Failure: Error>(
    _ count: Int, on errorType: Failure.Type, backoff: Backoff = .immediate,
    if shouldRetry: @escaping @Sendable (Failure) -> Bool = { _ in true },
    fileID: String = #fileID, line: Int = #line
  ) -> ModifiedState<Context> {
    addRetry(
      RetryRule(
        count: count, backoff: backoff,
        filter: { error in (error as? Failure).map(shouldRetry) ?? false },
        errorType: String(describing: errorType)),
      fileID: fileID, line: line)
  }

  private func addRetry(_ rule: RetryRule, fileID: String, line: Int) -> ModifiedState<Context> {
    ModifiedState(declaration, fileID: fileID, line: line) { modifiers in
      if modifiers.retry != nil {
        modifiers.problems.append(
          "declares a second retry (line \(line)). Keep one .retry(…), with a filter that accepts every error to retry."
        )
      } else if rule.count < 0 {
        modifiers.problems.append(
          "retries \(rule.count) times (line \(line)). Give a count of 0 or more.")
      } else if let problem = rule.backoff.problem {
        modifiers.problems.append("has a retry backoff that \(problem) (line \(line)).")
      }
      modifiers.retry = rule
    }
  }

  /// Goes to the state named `target` when the state's code throws (after its retries, if
  /// any), instead of failing the run; `handle` gets the error.
  ///
  /// The target is written like a ``GoTo``'s: it must name one state of the same flow, and
  /// the compiler reports a name that names none (with a suggestion) or several, or a state
  /// in another branch of a dispatch. The target counts as reachable. Catch routes are
  /// tried in the order they are written; the first that accepts the error is taken.
  ///
  /// `handle` runs on the context as it was before the state's first attempt (what the
  /// failed attempts changed is dropped), then the run goes on at `target`, whose code can
  /// read what `handle` stored. A timeout is caught as a ``StateTimeoutError``. A cancelled
  /// run is not caught: it ends ``RunError/Kind/cancelled``.
  ///
  /// ```swift
  /// Action("Charge card") { context in try await bank.charge(context.order) }
  ///   .catch(goTo: "Report failure") { context, error in context.failure = "\(error)" }
  /// ```
  ///
  /// - Parameters:
  ///   - target: The name of the state to go to.
  ///   - fileID: The file of the modifier, for definition errors; keep the default.
  ///   - line: The line of the modifier, for definition errors; keep the default.
  ///   - handle: Stores what the target needs of the error in the context; by default,
  ///     nothing.
  public func `catch`(
    goTo target: String, fileID: String = #fileID, line: Int = #line,
    _ handle: @escaping @Sendable (inout Context, any Error) -> Void = { _, _ in }
  ) -> ModifiedState<Context> {
    addCatch(
      target, filter: { _ in true }, errorType: nil, handler: CatchHandlerBox(handle),
      fileID: fileID, line: line)
  }

  /// Goes to the state named `target` when the state's code throws an error of type
  /// `errorType` (after its retries, if any); other errors go on to the next catch route,
  /// or fail the run.
  ///
  /// ```swift
  /// Action("Fetch") { context in try await fetch(&context) }
  ///   .timeout(.seconds(5))
  ///   .catch(StateTimeoutError.self, goTo: "Use cached copy")
  ///   .catch(goTo: "Report failure") { context, error in context.failure = "\(error)" }
  /// ```
  ///
  /// See ``catch(goTo:fileID:line:_:)`` for how a catch route runs.
  public func `catch`<Failure: Error>(
    _ errorType: Failure.Type, goTo target: String, fileID: String = #fileID,
    line: Int = #line,
    _ handle: @escaping @Sendable (inout Context, Failure) -> Void = { _, _ in }
  ) -> ModifiedState<Context> {
    addCatch(
      target, filter: { $0 is Failure }, errorType: String(describing: errorType),
      handler: CatchHandlerBox { context, error in
        if let error = error as? Failure { handle(&context, error) }
      }, fileID: fileID, line: line)
  }

  /// Goes to the state named `target` when the state's code throws (after its retries, if
  /// any), with the error stored in the context at `keyPath`.
  ///
  /// ```swift
  /// Action("Charge card") { context in try await bank.charge(context.order) }
  ///   .catch(goTo: "Report failure", storingErrorIn: \.lastError)
  /// ```
  ///
  /// See ``catch(goTo:fileID:line:_:)`` for how a catch route runs.
  public func `catch`(
    goTo target: String, storingErrorIn keyPath: WritableKeyPath<Context, (any Error)?> & Sendable,
    fileID: String = #fileID, line: Int = #line
  ) -> ModifiedState<Context> {
    addCatch(
      target, filter: { _ in true }, errorType: nil,
      handler: CatchHandlerBox { context, error in context[keyPath: keyPath] = error },
      fileID: fileID, line: line)
  }

  private func addCatch(
    _ target: String, filter: @escaping @Sendable (any Error) -> Bool, errorType: String?,
    handler: CatchHandlerBox<Context>, fileID: String, line: Int
  ) -> ModifiedState<Context> {
    let route = CatchRoute(
      target: GoToDeclaration(name: target, location: SourceLocation(fileID: fileID, line: line)),
      filter: filter, errorType: errorType, handler: handler)
    return ModifiedState(declaration, fileID: fileID, line: line) { modifiers in
      modifiers.catches.append(route)
    }
  }
}

/// A state with a timeout, retries or catch routes: what the modifier methods of
/// ``FlowComponent`` return, in a ``FlowBuilder`` block like the state itself.
///
/// Chain modifiers in any order; each kind at most once, but as many catch routes as you
/// like:
///
/// ```swift
/// Action("Upload") { context in try await upload(context.photo) }
///   .timeout(.seconds(30))
///   .retry(3, backoff: .exponential(initial: .seconds(1), maximum: .seconds(10)))
///   .catch(goTo: "Report failure") { context, error in context.failure = "\(error)" }
/// ```
///
/// Modifiers apply to actions, conditions, multiple conditions, waiting states, subflows
/// and maps: states whose code can fail or take long. (A custom ``FlowComponent`` whose
/// declaration is a ``GoTo``'s has no code: modifiers leave it unchanged.) A dispatch takes none (its branches'
/// states do, and its join policy says which branch failures it tolerates): the compiler
/// reports one as a ``DefinitionError``.
public struct ModifiedState<Context: Sendable>: FlowComponent, Sendable {
  /// The state, as a ``FlowBuilder`` block lists it.
  public let declaration: Declaration<Context>

  /// `declaration` with its modifiers changed by `change`.
  init(
    _ declaration: Declaration<Context>, fileID: String, line: Int,
    _ change: (inout ModifierValues) -> Void
  ) {
    guard case .state(let state) = declaration.node else {
      // A custom component whose declaration is a `GoTo` has no code to modify, and an
      // arrow has no place to report a problem at: the arrow stays as it is (documented on
      // ``ModifiedState``).
      self.declaration = declaration
      return
    }
    var values = ModifierValues(state.modifiers)
    change(&values)
    self.declaration = Declaration(.state(state.modified(with: StateModifiers(values))))
  }
}

/// The error of a state's attempt that did not finish within the state's timeout (see
/// ``FlowComponent/timeout(_:fileID:line:)``): what a retry filter and a catch route see.
public struct StateTimeoutError: Error, Sendable, CustomStringConvertible {
  /// The name of the state that timed out.
  public let stateName: String
  /// Its timeout.
  public let limit: Duration

  /// `'Fetch' did not finish within 5s`.
  public var description: String {
    "\(DisplayText.quoted(name: stateName)) did not finish within \(ModifierText.duration(limit))"
  }
}
