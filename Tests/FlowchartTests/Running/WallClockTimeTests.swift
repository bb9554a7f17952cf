import Flowchart
import FlowchartTesting
import Testing

@Suite("Wall-clock time")
struct WallClockTimeTests {
  @Test("prints as an RFC 3339 timestamp in UTC, with the fraction's trailing zeros dropped")
  func printing() {
    #expect(WallClockTime(secondsSince1970: 0).description == "1970-01-01T00:00:00Z")
    #expect(WallClockTime(secondsSince1970: 1_767_225_600).description == "2026-01-01T00:00:00Z")
    #expect(
      WallClockTime(nanosecondsSince1970: 951_782_400_250_000_000).description
        == "2000-02-29T00:00:00.25Z")
    #expect(WallClockTime(nanosecondsSince1970: -1).description == "1969-12-31T23:59:59.999999999Z")
  }

  @Test("reads what it prints, over days spread across its whole range")
  func roundTrip() {
    var generator = SeededGenerator(seed: 1970)
    for _ in 0..<2000 {
      let time = WallClockTime(
        nanosecondsSince1970: Int64.random(
          in: -9_000_000_000_000_000_000...9_000_000_000_000_000_000, using: &generator))
      #expect(WallClockTime(rfc3339: time.description) == time, "\(time)")
    }
  }

  @Test("reads offsets, lower-case separators and short fractions")
  func offsets() {
    #expect(
      WallClockTime(rfc3339: "2026-11-27T06:40:00+01:00")
        == WallClockTime(rfc3339: "2026-11-27T05:40:00Z"))
    #expect(
      WallClockTime(rfc3339: "2026-11-27t05:40:00.5z")
        == WallClockTime(rfc3339: "2026-11-27T05:40:00.500000000Z"))
    #expect(
      WallClockTime(rfc3339: "2026-11-26T23:00:00-06:40")
        == WallClockTime(rfc3339: "2026-11-27T05:40:00Z"))
  }

  @Test(
    "refuses text that is not a timestamp, and days that do not exist",
    arguments: [
      "", "2026-11-27", "2026-11-27T05:40:00", "2026-02-29T00:00:00Z", "2026-13-01T00:00:00Z",
      "2026-11-27T24:00:00Z", "2026-11-27T05:40:00.Z", "2026-11-27T05:40:00.1234567890Z",
      "2026-11-27T05:40:00Z ", "9999-01-01T00:00:00Z", "2026-11-27T05:40:00+1:00",
    ])
  func refusals(text: String) {
    #expect(WallClockTime(rfc3339: text) == nil)
  }

  @Test("moves by durations, and clamps at the ends of its range")
  func arithmetic() {
    let start = WallClockTime(secondsSince1970: 100)
    #expect(start.advanced(by: .seconds(1.5)).nanosecondsSince1970 == 101_500_000_000)
    #expect(start.duration(to: start.advanced(by: .milliseconds(-250))) == .milliseconds(-250))
    #expect(
      WallClockTime(nanosecondsSince1970: .max).advanced(by: .seconds(1)).nanosecondsSince1970
        == .max)
    #expect(WallClockTime(secondsSince1970: .min).nanosecondsSince1970 == .min)
  }

  @Test("the system's time is after this code was written")
  func systemTime() {
    #expect(WallClockTime.now > WallClockTime(rfc3339: "2026-11-27T00:00:00Z")!)
    #expect(ContinuousClock().wallClockNow > WallClockTime(rfc3339: "2026-11-27T00:00:00Z")!)
  }

  @Test("a test clock's wall-clock time starts where it is told and moves only with the clock")
  func testClock() {
    let clock = TestClock()
    #expect(clock.wallClockNow.description == "2026-01-01T00:00:00Z")
    clock.advance(by: .seconds(90))
    #expect(clock.wallClockNow.description == "2026-01-01T00:01:30Z")
    let other = TestClock(wallClockStart: WallClockTime(rfc3339: "2030-06-01T12:00:00Z")!)
    #expect(other.wallClockNow.description == "2030-06-01T12:00:00Z")
  }

  @Test("decoding reports text that is not a timestamp")
  func decoding() throws {
    let time = try #require(WallClockTime(rfc3339: "2026-11-27T05:40:00.25Z"))
    #expect(throws: DecodingError.self) {
      _ = try PropertyListLikeDecoder.decode(WallClockTime.self, from: "yesterday")
    }
    #expect(try PropertyListLikeDecoder.decode(WallClockTime.self, from: time.description) == time)
  }
}

/// A decoder of one string, enough to call `WallClockTime`'s `Decodable` initializer without
/// Foundation.
private struct PropertyListLikeDecoder: Decoder, SingleValueDecodingContainer {
  let text: String
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  static func decode<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
    try T(from: PropertyListLikeDecoder(text: text))
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    throw DecodingError.typeMismatch(
      type, .init(codingPath: [], debugDescription: "one string only"))
  }
  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    throw DecodingError.typeMismatch(
      String.self, .init(codingPath: [], debugDescription: "one string only"))
  }
  func singleValueContainer() throws -> any SingleValueDecodingContainer { self }
  func decodeNil() -> Bool { false }
  func decode(_ type: String.Type) throws -> String { text }
  func decode<T: Decodable>(_ type: T.Type) throws -> T {
    throw DecodingError.typeMismatch(
      type, .init(codingPath: [], debugDescription: "one string only"))
  }
}
