// What a state's declaration holds of its modifiers (`StateModifiers`, built through
// `ModifierValues` by the calls in `Modifiers.swift`), and how modifiers show durations
// (`ModifierText`), for the printed tree and the messages.

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
