import CFlowchartAtomics

/// An instant of wall-clock time: nanoseconds since 1970-01-01 00:00:00 UTC, leap seconds not
/// counted (POSIX time).
///
/// A deadline that must outlive its process (a durable run's pending timeout or backoff, a
/// state that waits until a time) is kept as a `WallClockTime`, never as an instant of a
/// monotonic clock: `ContinuousClock`'s instants mean nothing in another process or after a
/// reboot. A run's clock says which wall-clock time its `now` is through
/// ``WallClockMapping``; a deadline on that clock is then `wallClockNow` plus the time left.
///
/// It prints, encodes and decodes as an RFC 3339 timestamp in UTC with up to nine digits of
/// fraction (`2026-11-27T05:40:00.25Z`), so a stored snapshot reads like a date.
public struct WallClockTime: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// Nanoseconds since 1970-01-01 00:00:00 UTC; negative before it.
  public var nanosecondsSince1970: Int64

  /// The instant `nanosecondsSince1970` nanoseconds after 1970-01-01 00:00:00 UTC.
  public init(nanosecondsSince1970: Int64) {
    self.nanosecondsSince1970 = nanosecondsSince1970
  }

  /// The instant `secondsSince1970` whole seconds after 1970-01-01 00:00:00 UTC, clamped to
  /// what 64 bits of nanoseconds hold (the years 1677 to 2262).
  public init(secondsSince1970: Int64) {
    let (nanoseconds, overflow) = secondsSince1970.multipliedReportingOverflow(by: 1_000_000_000)
    self.nanosecondsSince1970 = overflow ? (secondsSince1970 < 0 ? .min : .max) : nanoseconds
  }

  /// The system's wall-clock time now (`CLOCK_REALTIME`).
  ///
  /// It can jump when the system's time is set; a run measures durations on its own clock and
  /// uses this only to carry a deadline from one process to another.
  public static var now: WallClockTime {
    var seconds: Int64 = 0
    var nanoseconds: Int32 = 0
    _ = flowchart_wall_clock_now(&seconds, &nanoseconds)
    return WallClockTime(secondsSince1970: seconds).advanced(by: .nanoseconds(Int64(nanoseconds)))
  }

  /// The instant `duration` after this one (before it, when `duration` is negative), clamped
  /// to the range a `WallClockTime` holds.
  public func advanced(by duration: Duration) -> WallClockTime {
    let (sum, overflow) = nanosecondsSince1970.addingReportingOverflow(duration.wholeNanoseconds)
    if overflow { return WallClockTime(nanosecondsSince1970: duration < .zero ? .min : .max) }
    return WallClockTime(nanosecondsSince1970: sum)
  }

  /// The time from this instant to `other`: negative when `other` comes first.
  public func duration(to other: WallClockTime) -> Duration {
    .nanoseconds(other.nanosecondsSince1970) - .nanoseconds(nanosecondsSince1970)
  }

  /// Whether `lhs` comes before `rhs`.
  public static func < (lhs: WallClockTime, rhs: WallClockTime) -> Bool {
    lhs.nanosecondsSince1970 < rhs.nanosecondsSince1970
  }

  /// The instant as an RFC 3339 timestamp in UTC: `2026-11-27T05:40:00Z`, with a fraction of
  /// a second (trailing zeros dropped) when there is one: `2026-11-27T05:40:00.25Z`.
  public var description: String {
    let (seconds, nanoseconds) = nanosecondsSince1970.floorDividedAndRemainder(by: 1_000_000_000)
    let (days, secondOfDay) = seconds.floorDividedAndRemainder(by: 86_400)
    let date = CivilDate(daysSince1970: days)
    // Written digit by digit into one buffer: every snapshot encodes a time, and string
    // interpolation of each field cost more than the rest of the snapshot's own fields.
    var text: [UInt8] = []
    text.reserveCapacity(30)
    func digits(_ value: Int64, _ width: Int) {
      // Years 1677 to 2262 (what an Int64 of nanoseconds holds): four digits at most.
      var divisor: Int64 = 1
      for _ in 1..<width { divisor *= 10 }
      var rest = value
      while divisor > 0 {
        text.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
        rest %= divisor
        divisor /= 10
      }
    }
    digits(date.year, 4)
    text.append(UInt8(ascii: "-"))
    digits(date.month, 2)
    text.append(UInt8(ascii: "-"))
    digits(date.day, 2)
    text.append(UInt8(ascii: "T"))
    digits(secondOfDay / 3600, 2)
    text.append(UInt8(ascii: ":"))
    digits(secondOfDay / 60 % 60, 2)
    text.append(UInt8(ascii: ":"))
    digits(secondOfDay % 60, 2)
    if nanoseconds != 0 {
      text.append(UInt8(ascii: "."))
      var fraction = nanoseconds
      var width = 9
      while fraction % 10 == 0 {
        fraction /= 10
        width -= 1
      }
      digits(fraction, width)
    }
    text.append(UInt8(ascii: "Z"))
    return String(decoding: text, as: UTF8.self)
  }

  /// The instant an RFC 3339 timestamp names: `2026-11-27T05:40:00Z`, with an optional
  /// fraction of up to nine digits and either `Z` or an offset such as `+01:00` (a lower-case
  /// `t` and `z` are accepted too). `nil` when `text` is not such a timestamp, names a day
  /// that does not exist, or lies outside the years 1677 to 2262.
  public init?(rfc3339 text: String) {
    var parser = TimestampParser(text)
    guard let parsed = parser.parse() else { return nil }
    self = parsed
  }
}

extension WallClockTime: Codable {
  /// Decodes an RFC 3339 timestamp (see ``init(rfc3339:)``).
  ///
  /// - Throws: `DecodingError.dataCorrupted` naming the text when it is not one.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    guard let time = WallClockTime(rfc3339: text) else {
      throw DecodingError.dataCorruptedError(
        in: container,
        debugDescription:
          "'\(text)' is not a UTC timestamp such as 2026-11-27T05:40:00Z (RFC 3339, years 1677 to 2262)."
      )
    }
    self = time
  }

  /// Encodes the instant as its ``description``, an RFC 3339 timestamp in UTC.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(description)
  }
}

/// A clock that knows which wall-clock time its `now` is, so a deadline on it can be carried
/// to another process as a ``WallClockTime`` and brought back.
///
/// A deadline `d` on the clock is the wall-clock time `wallClockNow` advanced by
/// `now.duration(to: d)`; a wall-clock deadline `w` is the instant ``instant(at:)`` gives
/// (by default `now` advanced by `wallClockNow.duration(to: w)`; at once, when that has
/// passed). `ContinuousClock` and `SuspendingClock` read the system's wall-clock time;
/// FlowchartTesting's `TestClock` keeps its own, which moves only when the test advances the
/// clock. A run on a clock that does not conform reads the system's wall-clock time.
///
/// A run waits for a wall-clock deadline (a ``Delay``'s, a retry's backoff) by sleeping on
/// the clock until the instant ``instant(at:)`` gives, never for a duration worked out from
/// an earlier reading, so a clock that moves between the reading and the sleep cannot leave
/// the run asleep past its deadline.
public protocol WallClockMapping: Clock where Duration == Swift.Duration {
  /// The wall-clock time at this clock's `now`.
  var wallClockNow: WallClockTime { get }

  /// The instant of this clock at which its wall-clock time is `time` (in the past when
  /// `time` has passed).
  ///
  /// The default reads `now` and ``wallClockNow`` one after the other and maps `time` by
  /// their difference: right for a clock that moves by itself, up to the time between the
  /// two readings. A clock whose time moves only when something moves it (a test clock)
  /// should give the exact instant, counted from its own start.
  func instant(at time: WallClockTime) -> Instant
}

extension WallClockMapping {
  /// The instant `now` advanced by the time from ``wallClockNow`` to `time`.
  public func instant(at time: WallClockTime) -> Instant {
    let now = now
    return now.advanced(by: wallClockNow.duration(to: time))
  }
}

extension ContinuousClock: WallClockMapping {
  /// The system's wall-clock time (``WallClockTime/now``).
  public var wallClockNow: WallClockTime { .now }
}

extension SuspendingClock: WallClockMapping {
  /// The system's wall-clock time (``WallClockTime/now``).
  public var wallClockNow: WallClockTime { .now }
}

extension Duration {
  /// The duration in whole nanoseconds, clamped to what an `Int64` holds.
  var wholeNanoseconds: Int64 {
    let (seconds, attoseconds) = components
    let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    if overflow { return seconds < 0 ? .min : .max }
    let (sum, overflowed) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
    if overflowed { return seconds < 0 ? .min : .max }
    return sum
  }
}

extension Int64 {
  /// The quotient rounded down and the remainder, which is never negative for a positive
  /// divisor.
  fileprivate func floorDividedAndRemainder(by divisor: Int64) -> (Int64, Int64) {
    let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
    return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
  }

  /// The number in decimal, with leading zeros to at least `width` digits.
  fileprivate func padded(_ width: Int) -> String {
    let digits = String(self)
    return digits.count >= width
      ? digits : String(repeating: "0", count: width - digits.count) + digits
  }
}

/// A day of the proleptic Gregorian calendar, and its number of days since 1970-01-01
/// (Howard Hinnant's `civil_from_days` and `days_from_civil`).
private struct CivilDate {
  var year: Int64
  var month: Int64
  var day: Int64

  init(year: Int64, month: Int64, day: Int64) {
    self.year = year
    self.month = month
    self.day = day
  }

  init(daysSince1970 days: Int64) {
    let shifted = days + 719_468
    let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
  }

  var daysSince1970: Int64 {
    let shiftedYear = month <= 2 ? year - 1 : year
    let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
    let yearOfEra = shiftedYear - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// Whether the day exists: February 29 only in leap years, and so on.
  var exists: Bool {
    guard (1...12).contains(month), day >= 1 else { return false }
    let isLeap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    let lengths: [Int64] = [31, isLeap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    return day <= lengths[Int(month - 1)]
  }
}

/// Reads an RFC 3339 timestamp, one character at a time.
private struct TimestampParser {
  private let characters: [UInt8]
  private var index = 0

  init(_ text: String) {
    characters = Array(text.utf8)
  }

  mutating func parse() -> WallClockTime? {
    guard let year = number(digits: 4), take("-"), let month = number(digits: 2), take("-"),
      let day = number(digits: 2), take("T") || take("t"), let hour = number(digits: 2),
      take(":"), let minute = number(digits: 2), take(":"), let second = number(digits: 2)
    else { return nil }
    let date = CivilDate(year: year, month: month, day: day)
    guard date.exists, hour < 24, minute < 60, second < 60 else { return nil }
    var nanoseconds: Int64 = 0
    if take(".") {
      var count = 0
      while index < characters.count, let digit = digitValue(characters[index]) {
        guard count < 9 else { return nil }
        nanoseconds = nanoseconds * 10 + digit
        count += 1
        index += 1
      }
      guard count > 0 else { return nil }
      for _ in count..<9 { nanoseconds *= 10 }
    }
    var offsetSeconds: Int64 = 0
    if take("Z") || take("z") {
      offsetSeconds = 0
    } else if let sign: Int64 = take("+") ? 1 : (take("-") ? -1 : nil) {
      guard let hours = number(digits: 2), take(":"), let minutes = number(digits: 2),
        hours < 24, minutes < 60
      else { return nil }
      offsetSeconds = sign * (hours * 3600 + minutes * 60)
    } else {
      return nil
    }
    guard index == characters.count else { return nil }
    let seconds = date.daysSince1970 * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
    let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    guard !overflow else { return nil }
    let (total, overflowed) = whole.addingReportingOverflow(nanoseconds)
    guard !overflowed else { return nil }
    return WallClockTime(nanosecondsSince1970: total)
  }

  private mutating func take(_ character: Character) -> Bool {
    guard index < characters.count, let ascii = character.asciiValue, characters[index] == ascii
    else { return false }
    index += 1
    return true
  }

  private mutating func number(digits: Int) -> Int64? {
    guard index + digits <= characters.count else { return nil }
    var value: Int64 = 0
    for offset in 0..<digits {
      guard let digit = digitValue(characters[index + offset]) else { return nil }
      value = value * 10 + digit
    }
    index += digits
    return value
  }

  private func digitValue(_ byte: UInt8) -> Int64? {
    (48...57).contains(byte) ? Int64(byte - 48) : nil
  }
}
