import Flowchart
import Testing

/// How a multiple condition's keys and a state's names become text in the printed tree and
/// in ``Exit/Label``: one line each, reading one way, as the `Case` was written.
struct KeyTextTests {
  // MARK: - Keys that need quotes

  @Test func keyWithALineBreakStaysOnItsLineAsAQuotedEscape() throws {
    let chart = try wordChart(["a\nb", "c"])
    expectTree(
      chart,
      #"""
      Which word? (M)
      +- "a\nb": Exit 0 (A) !
      +- c: Exit 1 (A) !
      """#)
  }

  @Test func keyHoldingColonSpaceIsQuotedSoItReadsOneWay() throws {
    let chart = try wordChart(["x: y", "x"])
    expectTree(
      chart,
      #"""
      Which word? (M)
      +- "x: y": Exit 0 (A) !
      +- x: Exit 1 (A) !
      """#)
  }

  @Test func keyEndingWithAColonIsQuoted() throws {
    let chart = try wordChart(["ratio:", "a:b"])
    expectTree(
      chart,
      #"""
      Which word? (M)
      +- "ratio:": Exit 0 (A) !
      +- a:b: Exit 1 (A) !
      """#)
  }

  @Test func emptyKeyPrintsAsAnEmptyLiteral() throws {
    let chart = try wordChart(["", "two"])
    expectTree(
      chart,
      #"""
      Which word? (M)
      +- "": Exit 0 (A) !
      +- two: Exit 1 (A) !
      """#)
  }

  @Test func keysWithLeadingOrTrailingWhitespaceAreQuoted() throws {
    let chart = try wordChart([" a", "a ", "a b"])
    expectTree(
      chart,
      #"""
      Which word? (M)
      +- " a": Exit 0 (A) !
      +- "a ": Exit 1 (A) !
      +- a b: Exit 2 (A) !
      """#)
  }

  @Test func keyHoldingAQuoteIsQuotedWithTheQuoteEscaped() throws {
    let chart = try wordChart(["say \"hi\"", #"C:\temp"#])
    expectTree(
      chart,
      #"""
      Which word? (M)
      +- "say \"hi\"": Exit 0 (A) !
      +- C:\temp: Exit 1 (A) !
      """#)
  }

  @Test func terminalEscapeInAKeyIsWrittenAsAnEscape() throws {
    let chart = try wordChart(["\u{1B}[2J", "tab\there"])
    expectTree(
      chart,
      #"""
      Which word? (M)
      +- "\u{1B}[2J": Exit 0 (A) !
      +- "tab\there": Exit 1 (A) !
      """#)
  }

  @Test func keysSpelledLikeTheDefaultExitOrNilAreQuoted() throws {
    let chart = try wordChart(["default", "nil"], withDefault: true)
    expectTree(
      chart,
      #"""
      Which word? (M)
      +- "default": Exit 0 (A) !
      +- "nil": Exit 1 (A) !
      +- default: Other (A) !
      """#)
  }

  @Test func documentedExampleOfQuotedKeysPrintsAsDocumented() throws {
    // PrintingTrees.md, "Keys and names".
    let chart = try Flowchart<Switches> {
      MultipleCondition("Which word?") {
        $0.word
      } exits: {
        Case("x: y") { Action("Split", isFinal: true) }
        Case("") { Action("Empty", isFinal: true) }
        Case("a\nb") { Action("Two lines", isFinal: true) }
        Case("plain") { Action("Plain", isFinal: true) }
        Default { Action("Other", isFinal: true) }
      }
    }
    expectTree(
      chart,
      #"""
      Which word? (M)
      +- "x: y": Split (A) !
      +- "": Empty (A) !
      +- "a\nb": Two lines (A) !
      +- plain: Plain (A) !
      +- default: Other (A) !
      """#)
  }

  // MARK: - Keys as written

  @Test func optionalKeyPrintsItsWrappedValueAndNilForNone() throws {
    // swift-format-ignore
    let chart = try Flowchart<Switches> {
      MultipleCondition("Which word?") { context -> String? in
        context.word.isEmpty ? nil : context.word
      } exits: {
        Case("A") { Action("Got A", isFinal: true) }
        Case(nil) { Action("Got none", isFinal: true) }
        Case("nil") { Action("Got the word nil", isFinal: true) }
      }
    }
    expectTree(
      chart,
      #"""
      Which word? (M)
      +- A: Got A (A) !
      +- nil: Got none (A) !
      +- "nil": Got the word nil (A) !
      """#)
    #expect(
      chart.describedExits(of: "Which word?") == [
        "A -> Got A", "nil -> Got none", "\"nil\" -> Got the word nil",
      ])
  }

  @Test func nestedOptionalKeyPrintsItsInnermostValue() throws {
    // swift-format-ignore
    let chart = try Flowchart<Switches> {
      MultipleCondition("Count?") { _ -> Int?? in 3 } exits: {
        Case(.some(.some(3))) { Action("Three", isFinal: true) }
        Case(.none) { Action("None", isFinal: true) }
      }
    }
    expectTree(
      chart,
      """
      Count? (M)
      +- 3: Three (A) !
      +- nil: None (A) !
      """)
  }

  @Test func enumIntAndDoubleKeysPrintAsTheyDescribeThemselves() throws {
    // swift-format-ignore
    let chart = try Flowchart<Switches> {
      MultipleCondition("Plan?") { _ in Membership.pro } exits: {
        Case(.pro) { Action("Pro", isFinal: true) }
        Default {
          MultipleCondition("Count?") { _ in 1 } exits: {
            Case(-1) { Action("Minus one", isFinal: true) }
            Case(42) { Action("Forty-two", isFinal: true) }
            Default {
              MultipleCondition("Ratio?") { _ in 0.5 } exits: {
                Case(0.5) { Action("Half", isFinal: true) }
                Case(Double.nan) { Action("Not a number", isFinal: true) }
              }
            }
          }
        }
      }
    }
    expectTree(
      chart,
      """
      Plan? (M)
      +- pro: Pro (A) !
      +- default: Count? (M)
      |  +- -1: Minus one (A) !
      |  +- 42: Forty-two (A) !
      |  +- default: Ratio? (M)
      |  |  +- 0.5: Half (A) !
      |  |  +- nan: Not a number (A) !
      """)
  }

  @Test func exitLabelHoldsTheKeysText() throws {
    let chart = try wordChart(["x: y", "plain"])
    let id = try #require(chart.state(named: "Which word?"))
    #expect(chart[id].exits.map(\.label) == [.key("\"x: y\""), .key("plain")])
  }

  // MARK: - Keys that print the same

  @Test func notANumberTwiceIsADuplicateKey() {
    let line = #line + 7
    // swift-format-ignore
    let error = definitionError {
      try Flowchart<Switches> {
        MultipleCondition("Ratio?") { _ in 0.5 } exits: {
          Case(Double.nan) { Action("First", isFinal: true) }
          Case(0.5) { Action("Half", isFinal: true) }
          Case(Double.nan) { Action("Second", isFinal: true) }
        }
      }
    }
    expectOnlyProblem(error, .duplicateKey, name: "Ratio?", line: line, saying: ["'nan'"])
  }

  @Test func differentKeysWithTheSameDescriptionAreADuplicateKey() {
    let line = #line + 6
    // swift-format-ignore
    let error = definitionError {
      try Flowchart<Switches> {
        MultipleCondition("Tier?") { _ in Tier(rank: 1) } exits: {
          Case(Tier(rank: 1)) { Action("Gold", isFinal: true) }
          Case(Tier(rank: 2)) { Action("Silver", isFinal: true) }
        }
      }
    }
    expectOnlyProblem(error, .duplicateKey, name: "Tier?", line: line, saying: ["'tier'"])
  }

  @Test func optionalNoneAndSomeNoneAreADuplicateKey() {
    let line = #line + 6
    // swift-format-ignore
    let error = definitionError {
      try Flowchart<Switches> {
        MultipleCondition("Count?") { _ -> Int?? in nil } exits: {
          Case(.none) { Action("None", isFinal: true) }
          Case(.some(.none)) { Action("Some none", isFinal: true) }
        }
      }
    }
    expectOnlyProblem(error, .duplicateKey, name: "Count?", line: line, saying: ["'nil'"])
  }

  // MARK: - Names

  @Test func nameStartingWithAQuoteIsWrittenAsALiteral() throws {
    let chart = try Flowchart<Switches> {
      Action("\"Hello\", said the app")
      Action("Done \"here\"", isFinal: true)
    }
    expectTree(
      chart,
      #"""
      "\"Hello\", said the app" (A)
      Done "here" (A) !
      """#)
  }

  // MARK: - Helpers

  /// A multiple condition over `Switches.word` with one final action per key, `Exit 0`,
  /// `Exit 1`, …, in order, and a final `Other` default when asked.
  private func wordChart(
    _ keys: [String], withDefault: Bool = false
  ) throws -> Flowchart<Switches> {
    try Flowchart<Switches> {
      MultipleCondition("Which word?") {
        $0.word
      } exits: {
        for (index, key) in keys.enumerated() {
          Case(key) { Action("Exit \(index)", isFinal: true) }
        }
        if withDefault {
          Default { Action("Other", isFinal: true) }
        }
      }
    }
  }
}

/// A key whose values differ but describe themselves alike.
private struct Tier: Hashable, Sendable, CustomStringConvertible {
  var rank: Int
  var description: String { "tier" }
}
