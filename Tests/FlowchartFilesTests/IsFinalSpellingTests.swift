import Flowchart
import FlowchartFiles
import Foundation
import Testing

/// A file may say a state is final as Swift does, `isFinal`, or as files always have,
/// `final`; both at once must agree.
struct IsFinalSpellingTests {
  static let json = """
    {"flowchart": [
      {"action": "Check"},
      {"wait": "Approval", "storeAt": "approved", "isFinal": true}
    ]}
    """
  static let xml = """
    <flowchart>
      <action name="Check"/>
      <wait name="Approval" storeAt="approved" isFinal="true"/>
    </flowchart>
    """

  @Test(arguments: [ChartSyntax.json, .xml])
  func isFinalReadsAsFinal(syntax: ChartSyntax) throws {
    let text = syntax == .json ? Self.json : Self.xml
    let spelledFinal = text.replacingOccurrences(of: "isFinal", with: "final")
    let read = try parse(text, syntax)
    #expect(read.text(in: syntax) == (try parse(spelledFinal, syntax)).text(in: syntax))
    #expect(read.text(in: .json).contains(#""final": true"#))
  }

  @Test(arguments: [ChartSyntax.json, .xml])
  func bothSpellingsThatAgreeAreAccepted(syntax: ChartSyntax) throws {
    let text =
      syntax == .json
      ? Self.json.replacingOccurrences(
        of: #""isFinal": true"#, with: #""isFinal": true, "final": true"#)
      : Self.xml.replacingOccurrences(of: #"isFinal="true""#, with: #"isFinal="true" final="true""#)
    #expect(try parse(text, syntax).text(in: .json).contains(#""final": true"#))
  }

  @Test func bothSpellingsThatDisagreeAreALocatedProblemInJSON() {
    let text = Self.json.replacingOccurrences(
      of: #""isFinal": true"#, with: #""final": false, "isFinal": true"#)
    let found = problems { () throws(DefinitionError) in _ = try parse(text, .json) }
    #expect(
      found == [
        #"test.json:3:74: malformed file: "final": false and "isFinal": true disagree: they are the same key, so write one of them."#
      ])
  }

  @Test func bothSpellingsThatDisagreeAreALocatedProblemInXML() {
    let text = Self.xml.replacingOccurrences(
      of: #"isFinal="true""#, with: #"final="false" isFinal="true""#)
    let found = problems { () throws(DefinitionError) in _ = try parse(text, .xml) }
    #expect(
      found == [
        #"test.xml:3:3: malformed file: final="false" and isFinal="true" on <wait> disagree: they are the same attribute, so write one of them."#
      ])
  }
}
