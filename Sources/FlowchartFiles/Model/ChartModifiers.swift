import Flowchart

/// A state's timeout, retries and catch routes as a file declares them: the file form of the
/// DSL's `.timeout(_:)`, `.retry(_:backoff:if:)` and `.catch(goTo:_:)`.
///
/// Durations are seconds, written as numbers (`"timeout": 30`, `timeout="0.5"`).
package struct ChartModifiers: Hashable, Sendable {
  /// How many seconds each attempt may take, more than zero; `nil` for no timeout.
  package var timeout: Double?
  /// The retry rule, if any.
  package var retry: ChartRetry?
  /// The catch routes, in the order they are tried.
  package var catches: [ChartCatch]

  /// Creates a state's modifiers; none by default.
  package init(timeout: Double? = nil, retry: ChartRetry? = nil, catches: [ChartCatch] = []) {
    self.timeout = timeout
    self.retry = retry
    self.catches = catches
  }

  /// Whether the state has no modifier.
  package var isEmpty: Bool { timeout == nil && retry == nil && catches.isEmpty }
}

/// A retry rule as a file declares it (`"retry": {…}`, `<retry …/>`).
package struct ChartRetry: Hashable, Sendable {
  /// How many times to retry after the first attempt; 0 or more.
  package var count: Int
  /// How long to wait before each retry.
  package var backoff: ChartBackoff
  /// The name of the errors retried: a registered error filter, or `timeout`; `nil` for
  /// every error.
  package var errors: String?
  /// Where the rule was written.
  package var location: SourceLocation

  /// Creates a retry rule.
  package init(
    count: Int, backoff: ChartBackoff = ChartBackoff(), errors: String? = nil,
    at location: SourceLocation
  ) {
    self.count = count
    self.backoff = backoff
    self.errors = errors
    self.location = location
  }
}

/// A retry's backoff as a file declares it: the file form of `Backoff`, in seconds.
package struct ChartBackoff: Hashable, Sendable {
  /// How the delays grow.
  package var schedule: Schedule
  /// How the delays are spread, or `nil` for no jitter.
  package var jitter: Backoff.Jitter?
  /// The seed of the jitter, or `nil` for the system's random numbers.
  package var seed: UInt64?

  /// Creates a backoff; immediate by default.
  package init(schedule: Schedule = .immediate, jitter: Backoff.Jitter? = nil, seed: UInt64? = nil)
  {
    self.schedule = schedule
    self.jitter = jitter
    self.seed = seed
  }

  /// How a backoff's delays grow (`"backoff": "immediate" | "fixed" | "exponential"`).
  package enum Schedule: Hashable, Sendable {
    /// No wait.
    case immediate
    /// The same wait, in seconds, before every retry (`"delay"`).
    case fixed(delay: Double)
    /// A wait of `initial` seconds, multiplied by `multiplier` before each retry after the
    /// first, never more than `maximum` seconds.
    case exponential(initial: Double, multiplier: Double, maximum: Double)
  }

  /// The core's backoff.
  package var backoff: Backoff {
    var backoff: Backoff
    switch schedule {
    case .immediate: backoff = .immediate
    case .fixed(let delay): backoff = .fixed(.seconds(delay))
    case .exponential(let initial, let multiplier, let maximum):
      backoff = .exponential(
        initial: .seconds(initial), multiplier: multiplier, maximum: .seconds(maximum))
    }
    switch (jitter, seed) {
    case (let jitter?, let seed?): backoff = backoff.jittered(jitter, seed: seed)
    case (let jitter?, nil): backoff = backoff.jittered(jitter)
    case (nil, _): break
    }
    return backoff
  }
}

/// A catch route as a file declares it (`"catch": [{…}]`, `<catch …/>`).
package struct ChartCatch: Hashable, Sendable {
  /// The name of the state to go to.
  package var target: String
  /// The name of the errors caught: a registered error filter, or `timeout`; `nil` for
  /// every error.
  package var errors: String?
  /// The path of the data context the error's description is stored at (a data-only
  /// chart), if any.
  package var storeAt: String?
  /// The name of the registered catch handler that stores what the target needs, if any.
  package var handler: String?
  /// Where the route was written.
  package var location: SourceLocation

  /// Creates a catch route.
  package init(
    target: String, errors: String? = nil, storeAt: String? = nil, handler: String? = nil,
    at location: SourceLocation
  ) {
    self.target = target
    self.errors = errors
    self.storeAt = storeAt
    self.handler = handler
    self.location = location
  }
}

/// The error of a data-only action's built-in `fail` (`"fail": "message"`,
/// `fail="message"`): its description is the message.
public struct ChartFailure: Error, Hashable, Sendable, CustomStringConvertible {
  /// The name of the action that failed.
  public var stateName: String
  /// The file's message.
  public var message: String

  /// Creates a failure.
  public init(stateName: String, message: String) {
    self.stateName = stateName
    self.message = message
  }

  /// The message.
  public var description: String { message }
}
