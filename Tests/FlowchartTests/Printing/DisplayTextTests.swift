import Testing

@testable import Flowchart

/// ``DisplayText``, the one rule for how keys and names become text, against expectations
/// written by hand.
struct DisplayTextTests {
  @Test func ordinaryKeysAreWrittenAsTheyAre() {
    #expect(DisplayText.key("retry") == "retry")
    #expect(DisplayText.key("a b") == "a b")
    #expect(DisplayText.key("a:b") == "a:b")
    #expect(DisplayText.key(#"C:\temp"#) == #"C:\temp"#)
    #expect(DisplayText.key("Café ☕️") == "Café ☕️")
    #expect(DisplayText.key(Membership.team) == "team")
    #expect(DisplayText.key(-7) == "-7")
    #expect(DisplayText.key(true) == "true")
    #expect(DisplayText.key(Double.nan) == "nan")
  }

  @Test func ambiguousKeysAreQuotedLiterals() {
    #expect(DisplayText.key("") == #""""#)
    #expect(DisplayText.key(" a") == #"" a""#)
    #expect(DisplayText.key("a\u{A0}") == #""a\u{A0}""#)
    #expect(DisplayText.key("x: y") == #""x: y""#)
    #expect(DisplayText.key("x:") == #""x:""#)
    #expect(DisplayText.key("a\"b") == #""a\"b""#)
    #expect(DisplayText.key("default") == #""default""#)
    #expect(DisplayText.key("nil") == #""nil""#)
    #expect(DisplayText.key("a\\b: c") == #""a\\b: c""#)
  }

  @Test func charactersThatBreakOrHideTextAreEscaped() {
    #expect(DisplayText.key("a\nb") == #""a\nb""#)
    #expect(DisplayText.key("a\r\nb") == #""a\r\nb""#)
    #expect(DisplayText.key("\t\0") == #""\t\0""#)
    #expect(DisplayText.key("\u{1B}[2J") == #""\u{1B}[2J""#)
    #expect(DisplayText.key("a\u{7F}") == #""a\u{7F}""#)
    #expect(DisplayText.key("a\u{85}b") == #""a\u{85}b""#)
    #expect(DisplayText.key("a\u{2028}b") == #""a\u{2028}b""#)
    #expect(DisplayText.key("abc\u{202E}def") == #""abc\u{202E}def""#)
    #expect(DisplayText.key("a\u{200B}b") == #""a\u{200B}b""#)
  }

  @Test func emojiJoinersAndTagsAreKept() {
    let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}"
    #expect(DisplayText.key(family) == family)
    let england = "\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}"
    #expect(DisplayText.key(england) == england)
  }

  @Test func optionalKeysShowTheirWrappedValueOrNil() {
    #expect(DisplayText.key(Optional("A")) == "A")
    #expect(DisplayText.key(String?.none) == "nil")
    #expect(DisplayText.key(Optional("nil")) == #""nil""#)
    #expect(DisplayText.key(Optional("x: y")) == #""x: y""#)
    #expect(DisplayText.key(Int??.some(.some(3))) == "3")
    #expect(DisplayText.key(Int??.some(.none)) == "nil")
    #expect(DisplayText.key(Optional(Membership.free)) == "free")
  }

  @Test func keysSeenThroughExistentialsShowTheSame() {
    let key: any Hashable & Sendable = Optional("A")
    #expect(DisplayText.key(key) == "A")
    let none: any Hashable & Sendable = String?.none
    #expect(DisplayText.key(none) == "nil")
    #expect(DisplayText.key(AnyHashable(Optional("B"))) == "B")
  }

  @Test func namesAreWrittenAsTheyAreUnlessTheyNeedALiteral() {
    #expect(DisplayText.name("Fetch") == "Fetch")
    #expect(DisplayText.name("Step 1: fetch") == "Step 1: fetch")
    #expect(DisplayText.name("default") == "default")
    #expect(DisplayText.name("Say \"hi\"") == "Say \"hi\"")
    #expect(DisplayText.name("\"Hi\"") == #""\"Hi\"""#)
    #expect(DisplayText.name("") == #""""#)
    #expect(DisplayText.name(" Fetch") == #"" Fetch""#)
    #expect(DisplayText.name("a\nb") == #""a\nb""#)
    #expect(DisplayText.name("\u{1B}[2J") == #""\u{1B}[2J""#)
    #expect(DisplayText.name("Café") == "Café")
    #expect(DisplayText.name("Café\u{1B}") == #""Café\u{1B}""#)
    #expect(DisplayText.name("a\u{7F}b") == #""a\u{7F}b""#)
    #expect(DisplayText.name("Café ") == #""Café ""#)
    #expect(DisplayText.name("\u{A0}Café") == #""\u{A0}Café""#)
  }

  @Test func messagesQuoteWithSingleQuotesOrTheLiteral() {
    #expect(DisplayText.quoted(name: "Fetch") == "'Fetch'")
    #expect(DisplayText.quoted(name: "a\nb") == #""a\nb""#)
    #expect(DisplayText.quoted(key: "retry") == "'retry'")
    #expect(DisplayText.quoted(key: String?.none) == "'nil'")
    #expect(DisplayText.quoted(key: "x: y") == #""x: y""#)
    #expect(DisplayText.quoted(key: 3) == "'3'")
    let existential: any Hashable & Sendable = "x: y"
    #expect(DisplayText.quoted(key: existential) == #""x: y""#)
    #expect(DisplayText.quoted(text: DisplayText.key("x: y")) == #""x: y""#)
    #expect(DisplayText.quoted(text: DisplayText.key("retry")) == "'retry'")
    #expect(DisplayText.quoted(text: "default") == "'default'")
  }

  @Test func sameKeyTwiceAndSameTextTwiceAreTold() {
    let decision = KeyedDecision(
      .synchronous { (_: inout Int) in Double.nan },
      exits: [1.0, .nan, 1.0, .nan].map { key in Case<Int, Double>(key) {}.exit })
    #expect(decision.exits.map { $0.label } == ["1.0", "nan", "1.0", "nan"])
    let duplicates = decision.duplicateKeys
    #expect(duplicates.map { $0.index } == [2, 3])
    #expect(duplicates.map { $0.firstIndex } == [0, 1])
    #expect(duplicates.map { $0.reason } == [KeyedDecision.DuplicateKey.Reason.sameKey, .sameText])
  }
}
