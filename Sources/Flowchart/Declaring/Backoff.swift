// A retry's backoff: how long a state waits before each retry, fixed or exponential,
// with or without jitter (seeded, for a test, by `SplitMix64`). The retry modifier that
// takes it is in `Modifiers.swift`; the run loop waits it out in
// `Running/Interpreter+Modifiers.swift`.

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
