import Flowchart
import Foundation
import Testing

/// What the README and the printing article say about the kinds of state.
///
/// Their Swift blocks are compiled, run and checked against the output they show by
/// `.ci/samples` (in CI), not copied here.
struct ReadmeExampleTests {
  /// The table of kinds in README.md and in the printing article lists every ``StateKind``,
  /// once, with the letter the tree prints: a new kind, or a changed letter, fails this test
  /// until the tables say so.
  @Test(arguments: ["README.md", "Sources/Flowchart/Documentation.docc/PrintingTrees.md"])
  func theTableOfKindsListsEveryKindWithItsLetter(document: String) throws {
    let text = try String(
      contentsOf: packageFolder.appendingPathComponent(document), encoding: .utf8)
    // The table's rows: its header names a "Kind" column and a letter column ("Tree" or "Letter").
    let table = try #require(
      markdownTables(in: text).first { $0.first?.first == "Kind" },
      "\(document) has no table of kinds")
    let header = table[0]
    let letterColumn = try #require(
      header.firstIndex { $0 == "Tree" || $0 == "Letter" }, "\(document): no letter column")
    let rows = table.dropFirst(2)  // the header and its --- line
    #expect(rows.count == StateKind.allCases.count, "\(document): one row per kind")
    for kind in StateKind.allCases {
      let matching = rows.filter { $0[0].hasPrefix("\(kind)") }
      #expect(matching.count == 1, "\(document): \(matching.count) rows for the \(kind)")
      if let row = matching.first {
        #expect(row[letterColumn] == "`\(kind.letter)`", "\(document): the \(kind)'s letter")
      }
    }
  }
}

/// The package's folder, where README.md is.
private let packageFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Each Markdown table of `text`, as rows of trimmed cells.
private func markdownTables(in text: String) -> [[[String]]] {
  var tables: [[[String]]] = []
  var current: [[String]] = []
  for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
    if line.hasPrefix("|") {
      // Cells hold no escaped pipes in these tables.
      current.append(
        line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
          .map { $0.trimmingCharacters(in: .whitespaces) })
    } else if !current.isEmpty {
      tables.append(current)
      current = []
    }
  }
  if !current.isEmpty { tables.append(current) }
  return tables
}
