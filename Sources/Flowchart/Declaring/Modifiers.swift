// Per-state modifiers: a timeout, retries with a backoff, and catch routes, in the spirit
// of AWS Step Functions' `TimeoutSeconds`, `Retry` and `Catch`.
//
// A modifier is a property of the declaration, not a kind of state: the methods below copy
// the state's declaration with its ``StateModifiers``, the compiler resolves the catch
// routes like `GoTo`s and points the state's node at a ``ModifiedCode`` (see
// `Compiling/Compiler+Modifiers.swift`), and the run loop hands such a node to one helper
// (`Running/Interpreter+Modifiers.swift`). A state without modifiers compiles exactly as
// before.

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

/// How long a state waits before each retry (see ``FlowComponent/retry(_:backoff:if:fileID:line:)``).
///
/// ```swift
/// .retry(4, backoff: .fixed(.milliseconds(500)))
/// .retry(6, backoff: .exponential(initial: .milliseconds(100), maximum: .seconds(5)))
/// .retry(6, backoff: .exponential(initial: .milliseconds(100), maximum: .seconds(5))
///   .jittered(seed: 42))
/// ```
///
/// Every duration of a backoff is from zero to 1,000,000,000 seconds (about 31 years, the
/// longest wait chart files allow), and an exponential backoff's multiplier is a finite
/// number of 1 or more (chart files also cap it at 1,000,000; here a larger one only
/// reaches the maximum sooner). A state whose retry has a backoff outside those ranges is a
/// ``DefinitionError/Kind/invalidModifier`` error when its chart is compiled.
public struct Backoff: Sendable, CustomStringConvertible {
  enum Schedule: Sendable {
    case immediate
    case fixed(Duration)
    case exponential(initial: Duration, multiplier: Double, maximum: Duration)
  }

  /// How the delays are spread.
  public enum Jitter: Sendable {
    /// A delay drawn uniformly from zero to the computed delay (AWS's "full jitter").
    case full
    /// Half the computed delay, plus a delay drawn uniformly from zero to the other half.
    case equal
  }

  let schedule: Schedule
  let jitter: Jitter?
  /// The seed of the jitter, or `nil` for the system's random numbers.
  let seed: UInt64?

  /// No wait: each retry starts at once. A state whose retries do not wait (and that has no
  /// timeout) can run synchronously.
  public static var immediate: Backoff { Backoff(schedule: .immediate, jitter: nil, seed: nil) }

  /// The same wait, `delay`, before every retry.
  public static func fixed(_ delay: Duration) -> Backoff {
    Backoff(schedule: .fixed(delay), jitter: nil, seed: nil)
  }

  /// A wait of `initial` before the first retry, multiplied by `multiplier` before each
  /// one after it, and never more than `maximum`.
  ///
  /// `initial` and `maximum` are from zero to 1,000,000,000 seconds, and `multiplier` a
  /// finite number of 1 or more; see ``Backoff``.
  public static func exponential(
    initial: Duration, multiplier: Double = 2, maximum: Duration
  ) -> Backoff {
    Backoff(
      schedule: .exponential(initial: initial, multiplier: multiplier, maximum: maximum),
      jitter: nil, seed: nil)
  }

  /// This backoff with each delay spread by `jitter`, drawn from a generator seeded with
  /// `seed`: the same seed gives the same delays, run after run, so a test can pin them.
  ///
  /// The `n`-th retry's delay depends only on the seed and `n`.
  public func jittered(_ jitter: Jitter = .full, seed: UInt64) -> Backoff {
    Backoff(schedule: schedule, jitter: jitter, seed: seed)
  }

  /// This backoff with each delay spread by `jitter`, drawn from the system's random
  /// numbers.
  public func jittered(_ jitter: Jitter = .full) -> Backoff {
    Backoff(schedule: schedule, jitter: jitter, seed: nil)
  }

  /// The wait before retry `retry` (1 for the first retry), jitter included.
  ///
  /// ```swift
  /// let backoff = Backoff.exponential(initial: .seconds(1), maximum: .seconds(5))
  /// (1...4).map(backoff.delay(beforeRetry:))  // 1, 2, 4, 5 seconds
  /// ```
  ///
  /// A retry number below 1 counts as 1. An exponential delay is worked out in one step,
  /// whatever the retry's number (`Int.max` included), and stops growing at `maximum`. For
  /// a backoff the compiler would reject (see ``Backoff``) the result is still a
  /// `Duration`, never a trap: a multiplier that is not a number counts as 1, a negative
  /// one as 0, an infinite one as the largest finite `Double`.
  ///
  /// - Complexity: O(log `retry`), at most 64 multiplications.
  public func delay(beforeRetry retry: Int) -> Duration {
    let computed: Duration
    switch schedule {
    case .immediate:
      return .zero
    case .fixed(let delay):
      computed = delay
    case .exponential(let initial, let multiplier, let maximum):
      computed = Self.exponentialDelay(
        initial: initial, multiplier: multiplier, maximum: maximum, retry: retry)
    }
    guard let jitter else { return computed }
    // Far from `Duration`'s bounds, so that a fraction of it converts back exactly.
    let bound = Duration.seconds(Int64.max)
    let spread = min(max(computed, .zero - bound), bound)
    let fraction: Double
    if let seed {
      var generator = SplitMix64(seed: seed &+ UInt64(truncatingIfNeeded: retry) &* 0x9E37_79B9)
      fraction = Double.random(in: 0...1, using: &generator)
    } else {
      fraction = Double.random(in: 0...1)
    }
    // A fraction of 0...1 of a duration stays within the duration's range.
    switch jitter {
    case .full: return spread * fraction
    case .equal: return spread / 2 + (spread / 2) * fraction
    }
  }

  /// `initial × multiplier^(retry − 1)`, at most `maximum`: the power by squaring, in
  /// `Double`, stopping as soon as it reaches `maximum / initial`, so that nothing
  /// overflows and the product is converted back to a `Duration` only when it is below
  /// `maximum`.
  static func exponentialDelay(
    initial: Duration, multiplier: Double, maximum: Duration, retry: Int
  ) -> Duration {
    // A maximum far from `Duration`'s bounds, so that a product just under it converts back
    // without overflowing (only a backoff the compiler rejects has a larger one).
    let maximum = min(maximum, .seconds(Int64.max))
    guard retry > 1, initial > .zero, initial < maximum else { return min(initial, maximum) }
    let base =
      multiplier.isNaN ? 1 : min(max(multiplier, 0), Double.greatestFiniteMagnitude)
    let ratio = (maximum / initial)  // more than 1
    var factor = 1.0
    var square = base
    var exponent = UInt(retry - 1)
    while exponent > 0 {
      if exponent & 1 == 1 {
        factor *= square
        // The factor only grows when the base is 1 or more, and only shrinks below it.
        if factor >= ratio { return maximum }
      }
      exponent >>= 1
      if exponent > 0 { square *= square }
    }
    return initial * factor
  }

  /// Whether some retry waits.
  var waits: Bool {
    switch schedule {
    case .immediate: false
    case .fixed(let delay): delay > .zero
    case .exponential(let initial, _, let maximum): initial > .zero && maximum > .zero
    }
  }

  /// What is wrong with the backoff's values, if anything, as the end of a sentence.
  var problem: String? {
    switch schedule {
    case .immediate:
      return nil
    case .fixed(let delay):
      return Self.problem(of: delay, as: "waits")
    case .exponential(let initial, let multiplier, let maximum):
      if let problem = Self.problem(of: initial, as: "starts at") { return problem }
      if let problem = Self.problem(of: maximum, as: "waits up to") { return problem }
      if !(multiplier >= 1) || !multiplier.isFinite {
        return "multiplies by \(multiplier): give a finite multiplier of 1 or more"
      }
      return nil
    }
  }

  /// What is wrong with `delay`, which the backoff `verb`s (`waits 2s`), if anything.
  private static func problem(of delay: Duration, as verb: String) -> String? {
    if delay < .zero {
      return "\(verb) a negative time, \(ModifierText.duration(delay)): give 0 or more"
    }
    if delay > longestWait {
      return
        "\(verb) \(ModifierText.duration(delay)), longer than the longest wait, \(longestWaitText): give a shorter time"
    }
    return nil
  }

  /// The longest timeout or backoff delay: 1,000,000,000 seconds (about 31 years), as in
  /// chart files. Longer ones would overflow some clocks' deadlines (a `ContinuousClock`'s
  /// holds about 292 years of nanoseconds).
  static var longestWait: Duration { .seconds(1_000_000_000) }

  /// ``longestWait`` as messages write it.
  static var longestWaitText: String { "1000000000s (about 31 years)" }

  /// `fixed 0.5s`, `exponential 0.1s×2…5s, full jitter`.
  public var description: String {
    var text: String
    switch schedule {
    case .immediate: text = "immediate"
    case .fixed(let delay): text = "fixed \(ModifierText.duration(delay))"
    case .exponential(let initial, let multiplier, let maximum):
      // A whole multiplier reads without its `.0`; the test needs no libm rounding.
      let factor =
        multiplier.isFinite && abs(multiplier) < 1e6 && multiplier == Double(Int(multiplier))
        ? String(Int(multiplier)) : String(multiplier)
      text =
        "exponential \(ModifierText.duration(initial))×\(factor)…\(ModifierText.duration(maximum))"
    }
    switch jitter {
    case .full: text += ", full jitter"
    case .equal: text += ", equal jitter"
    case nil: break
    }
    return text
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

/// SplitMix64: a small, fast generator, seeded, for jitter a test can pin.
struct SplitMix64: RandomNumberGenerator {
  var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// How modifiers show durations: in seconds when they are whole milliseconds (`5s`,
/// `0.25s`, `1.5s`); otherwise exactly, in the largest unit under them (`1ns`, `1.5µs`,
/// `2.000001ms`, `1.0000005s`), so that a duration shorter than a millisecond never reads
/// as `0s`.
enum ModifierText {
  static func duration(_ duration: Duration) -> String {
    // Beyond `Int64` seconds `components` would trap: such a duration is only ever named
    // as out of range, so an approximation will do.
    guard duration <= .seconds(Int64.max), duration >= .seconds(-Int64.max) else {
      return "\(duration / .seconds(1))s"
    }
    let sign = duration < .zero ? "-" : ""
    let (seconds, attoseconds) = (duration < .zero ? .zero - duration : duration).components
    let whole = UInt64(seconds)
    let fraction = UInt64(attoseconds)
    let millisecond: UInt64 = 1_000_000_000_000_000
    if fraction % millisecond == 0 {
      return sign + decimal(whole, fraction / millisecond, digits: 3) + "s"
    }
    if whole > 0 { return sign + decimal(whole, fraction, digits: 18) + "s" }
    let (unit, scale, digits): (String, UInt64, Int) =
      if fraction >= millisecond {
        ("ms", millisecond, 15)
      } else if fraction >= 1_000_000_000_000 {
        ("µs", 1_000_000_000_000, 12)
      } else {
        ("ns", 1_000_000_000, 9)
      }
    return sign + decimal(fraction / scale, fraction % scale, digits: digits) + unit
  }

  /// `whole.fraction`, the fraction written with `digits` digits, its trailing zeros
  /// dropped (and the point with them when it is zero).
  private static func decimal(_ whole: UInt64, _ fraction: UInt64, digits: Int) -> String {
    guard fraction != 0 else { return String(whole) }
    var text = String(fraction)
    text = String(repeating: "0", count: digits - text.count) + text
    while text.hasSuffix("0") { text.removeLast() }
    return "\(whole).\(text)"
  }
}

// MARK: - What the declaration holds

/// A retry modifier's values.
struct RetryRule: Sendable {
  var count: Int
  var backoff: Backoff
  var filter: @Sendable (any Error) -> Bool
  /// The error type it is limited to, for printing.
  var errorType: String?
}

/// The box of a catch route's handler, over the chart's context.
final class CatchHandlerBox<Context: Sendable>: Sendable {
  let function: @Sendable (inout Context, any Error) -> Void
  init(_ function: @escaping @Sendable (inout Context, any Error) -> Void) {
    self.function = function
  }
}

/// A catch route: where to go, which errors it takes, and the handler that stores the error.
struct CatchRoute: Sendable {
  /// The target's name and where the route was written, resolved by the compiler like a
  /// `GoTo`'s.
  var target: GoToDeclaration
  var filter: @Sendable (any Error) -> Bool
  /// The error type it is limited to, for printing.
  var errorType: String?
  /// A ``CatchHandlerBox`` over the chart's context.
  var handler: any AnyObject & Sendable
}

/// The modifiers while a chain of modifier calls builds them.
struct ModifierValues {
  var timeout: Duration?
  var retry: RetryRule?
  var catches: [CatchRoute] = []
  /// What is wrong with them, each the end of a sentence about the state.
  var problems: [String] = []

  init(_ modifiers: StateModifiers?) {
    guard let modifiers else { return }
    timeout = modifiers.timeout
    retry = modifiers.retry
    catches = modifiers.catches
    problems = modifiers.problems
  }
}

/// A state's timeout, retries and catch routes, as its declaration holds them.
@usableFromInline
final class StateModifiers: Sendable {
  let timeout: Duration?
  let retry: RetryRule?
  let catches: [CatchRoute]
  /// What is wrong with them, each the end of a sentence about the state; the compiler
  /// reports them.
  let problems: [String]

  init(_ values: ModifierValues) {
    timeout = values.timeout
    retry = values.retry
    catches = values.catches
    problems = values.problems
  }

  /// Whether running them may wait: a timeout, or a retry that waits. Such a state needs an
  /// asynchronous run.
  var waits: Bool {
    timeout != nil || (retry.map { $0.count > 0 && $0.backoff.waits } ?? false)
  }

  /// `timeout 5s, retry ×3 (exponential 0.1s×2…5s)`: what the printed tree shows.
  var summary: String {
    var parts: [String] = []
    if let timeout { parts.append("timeout \(ModifierText.duration(timeout))") }
    if let retry {
      var details: [String] = []
      if let type = retry.errorType { details.append("on \(type)") }
      if case .immediate = retry.backoff.schedule {
      } else {
        details.append(retry.backoff.description)
      }
      let suffix = details.isEmpty ? "" : " (\(details.joined(separator: ", ")))"
      parts.append("retry ×\(retry.count)\(suffix)")
    }
    return parts.joined(separator: ", ")
  }
}
