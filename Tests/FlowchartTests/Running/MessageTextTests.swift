import Flowchart
import Testing

/// Run errors show keys and names by the printed tree's rule, so a message reads the way the
/// tree does.
struct MessageTextTests {
  struct Order: Sendable {
    var coupon: String?
  }

  @Test func anUnmatchedOptionalKeyShowsItsWrappedValue() throws {
    let chart = try Flowchart<Order> {
      MultipleCondition("Coupon?") {
        $0.coupon
      } exits: {
        Case("WELCOME") { Action("Welcome discount", isFinal: true) }
        Case(nil) { Action("Full price", isFinal: true) }
      }
    }
    let error = try #require(throws: RunError.self) {
      try chart.runSynchronously(with: Order(coupon: "SPRING"))
    }
    #expect(error.kind == .unmatchedKey)
    #expect(error.description.contains("decided the key 'SPRING', which has no exit"))
  }

  @Test func anUnmatchedAmbiguousKeyIsALiteral() throws {
    let chart = try Flowchart<Order> {
      MultipleCondition("Coupon?") {
        $0.coupon ?? ""
      } exits: {
        Case("WELCOME") { Action("Welcome discount", isFinal: true) }
      }
    }
    let error = try #require(throws: RunError.self) {
      try chart.runSynchronously(with: Order(coupon: "a: b"))
    }
    #expect(error.description.contains(#"decided the key "a: b", which has no exit"#))
  }

  @Test func aStartNameIsQuotedByTheNameRule() throws {
    let chart = try Flowchart<Order> { Action("Done", isFinal: true) }
    let error = try #require(throws: RunError.self) {
      try chart.runSynchronously(with: Order(), startingAt: " Done")
    }
    #expect(error.kind == .unknownStartState)
    #expect(error.description.hasPrefix(#"A run cannot start at " Done": no state has that name."#))
  }

  @Test func keysThatPrintTheSameAreReportedAsSuch() {
    let error = definitionError {
      try Flowchart<Order> {
        MultipleCondition("Ratio?") { _ in
          Double.nan
        } exits: {
          Case(Double.nan) { Action("First", isFinal: true) }
          Case(Double.nan) { Action("Second", isFinal: true) }
        }
      }
    }
    #expect(error?.problems.map(\.kind) == [.duplicateKey])
    #expect(error?.problems.first?.message.contains("has two keys that print as 'nan'") == true)
  }
}
