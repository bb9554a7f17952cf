import Testing

@testable import Flowchart

/// How the run log writes a time or a duration: seconds with whole milliseconds.
struct RunLogSecondsTests {
  @Test(arguments: [
    (Duration.zero, "0.000s"),
    (.milliseconds(1_234), "1.234s"),
    (.microseconds(999), "0.000s"),
    (.milliseconds(-1_500), "-1.500s"),
    (.milliseconds(-1), "-0.001s"),
    (.seconds(86_400 * 3), "259200.000s"),
    (Duration(secondsComponent: 2, attosecondsComponent: -500_000_000_000_000_000), "1.500s"),
    (Duration(secondsComponent: -2, attosecondsComponent: 250_000_000_000_000_000), "-1.750s"),
  ])
  func writesSecondsWithMilliseconds(duration: Duration, text: String) {
    #expect(RunLog.seconds(duration) == text)
  }

  @Test func theLongestDurationsPrintWithoutOverflowing() {
    #expect(RunLog.seconds(.seconds(Int64.max)) == "9223372036854775807.000s")
    #expect(RunLog.seconds(.seconds(Int64.min)) == "-9223372036854775808.000s")
  }
}
