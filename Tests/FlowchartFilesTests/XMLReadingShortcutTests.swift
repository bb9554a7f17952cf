import Flowchart
import FlowchartFiles
import Testing

/// The XML reader's shortcuts for the common case (issue 26): each must give the answer the
/// full work gives, including where the common case does not hold.
struct XMLReadingShortcutTests {
  @Test func unknownAttributesAreReportedInOrderOfTheirNames() {
    let found = problems { () throws(DefinitionError) in
      _ = try parse(
        "<flowchart><action name=\"A\" zeta=\"1\" alpha=\"2\" final=\"true\" omega=\"3\" "
          + "beta=\"4\"/></flowchart>", .xml)
    }
    // Four unknown names: their order in the element's dictionary is the hash's, and only
    // one in 24 is theirs.
    #expect(
      found
        == ["alpha", "beta", "omega", "zeta"].map {
          "test.xml:1:12: malformed file: Unknown attribute '\($0)' on <action>: its attributes are fail, final, name, run, timeout."
        })
  }

  @Test func aTagOverSeveralLinesIsLocatedAtItsStart() {
    let found = problems { () throws(DefinitionError) in
      _ = try parse("<flowchart>\n  <action\n    name=\"A\"\n    bogus=\"x\"/>\n</flowchart>", .xml)
    }
    #expect(found.count == 1)
    #expect(found.first?.hasPrefix("test.xml:2:3: ") == true, "\(found)")
  }

  @Test func namesWithQuestionAndExclamationMarksAndLettersBeyondASCIIAreRead() throws {
    let file = try parse(
      "<?xml version=\"1.0\"?>\n<flowchart><action name=\"Ready?\" run=\"work\"/>"
        + "<action name=\"Gö!\" final=\"true\"/></flowchart>", .xml)
    let names = file.states.compactMap { node -> String? in
      guard case .action(let action) = node.kind else { return nil }
      return action.name
    }
    #expect(names == ["Ready?", "Gö!"])
  }

  @Test func aProcessingInstructionOrADocumentTypeAfterOtherMarksIsStillRefused() {
    let instruction = problems { () throws(DefinitionError) in
      _ = try parse(
        "<?xml version=\"1.0\"?>\n<flowchart><?pi x?><action name=\"Go!\" final=\"true\"/></flowchart>",
        .xml)
    }
    #expect(instruction.count == 1)
    #expect(instruction.first?.hasPrefix("test.xml:2:12: ") == true, "\(instruction)")
    #expect(instruction.first?.contains("processing instruction") == true, "\(instruction)")
    let invalid = problems { () throws(DefinitionError) in
      _ = try ChartFile.parse(
        Array("<flowchart><action name=\"Gö".utf8) + [0xC3] + Array("\"/></flowchart>".utf8),
        syntax: .xml, path: "test.xml")
    }
    #expect(invalid.count == 1)
    #expect(invalid.first?.contains("not valid UTF-8") == true, "\(invalid)")
  }
}
