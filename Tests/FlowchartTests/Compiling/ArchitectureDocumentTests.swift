import Foundation
import Testing

/// ARCHITECTURE.md stays true where a machine can check it: every Swift source file has its
/// place in the folder tables, and every `@unchecked Sendable` type its row in the unsafe
/// table.
///
/// A file `Name.swift` is listed when the row of its folder names `Name` in a code span; a
/// file `Type+Facet.swift` when that row names `Type+Facet`, or both `Type` and `+Facet` (the
/// table's way of listing a type's facets: "`Compiler` (driver), `+Numbering`"). A row's
/// folder is the folder under `Sources/Flowchart/` for the core module (`Running/`), and
/// the path under `Sources/` for the others (`FlowchartFiles/Reading/`, `FlowchartCLI/`).
@Suite struct ArchitectureDocumentTests {
  @Test func everySourceFileIsInTheFolderTable() throws {
    let document = try ArchitectureDocument.load()
    let rows = document.table(headed: "| Folder |")
    #expect(!rows.isEmpty, "ARCHITECTURE.md has no folder table")
    var missing: [String] = []
    for file in try ArchitectureDocument.swiftSources() {
      let spans = rows.filter { $0.first.first == file.folder }.flatMap(\.all)
      if !ArchitectureDocument.lists(file.name, in: spans) {
        missing.append("Sources/\(file.path)")
      }
    }
    #expect(
      missing.isEmpty,
      "Source files missing from ARCHITECTURE.md's folder tables (add each to its folder's row): \(missing.joined(separator: ", "))"
    )
  }

  @Test func everyUncheckedSendableTypeIsInTheUnsafeTable() throws {
    let document = try ArchitectureDocument.load()
    let rows = document.table(headed: "| Type |")
    #expect(!rows.isEmpty, "ARCHITECTURE.md has no unsafe table")
    let spans = Set(rows.flatMap(\.first))
    var missing: [String] = []
    for (type, path) in try ArchitectureDocument.uncheckedSendableTypes()
    where !spans.contains(type) {
      missing.append("\(type) (Sources/\(path))")
    }
    #expect(
      missing.isEmpty,
      "@unchecked Sendable types missing from ARCHITECTURE.md's unsafe table (add a row with what is unsafe and why it holds): \(missing.joined(separator: ", "))"
    )
  }

  @Test func theRulesCatchWhatIsMissing() {
    let spans = ["`Compiler` (driver), `+Numbering`", "`RunHandle+Retry`", "`Graph`"]
      .flatMap(ArchitectureDocument.codeSpans(in:))
    #expect(ArchitectureDocument.lists("Compiler+Numbering", in: spans))
    #expect(ArchitectureDocument.lists("RunHandle+Retry", in: spans))
    #expect(ArchitectureDocument.lists("Graph", in: spans))
    #expect(!ArchitectureDocument.lists("Compiler+Emitting", in: spans))
    #expect(!ArchitectureDocument.lists("Graph+Branches", in: spans))
    #expect(!ArchitectureDocument.lists("Node", in: spans))
  }
}

/// ARCHITECTURE.md and the package's sources, read from the package's folder.
private struct ArchitectureDocument {
  let lines: [String]

  /// The package's root: the nearest folder above this file that holds `Package.swift`.
  static var root: URL {
    var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    while !FileManager.default.fileExists(
      atPath: folder.appendingPathComponent("Package.swift").path),
      folder.pathComponents.count > 1
    {
      folder.deleteLastPathComponent()
    }
    return folder
  }

  static func load() throws -> ArchitectureDocument {
    let text = try String(
      contentsOf: root.appendingPathComponent("ARCHITECTURE.md"), encoding: .utf8)
    return ArchitectureDocument(lines: text.components(separatedBy: "\n"))
  }

  /// The rows of every table whose header starts with `header`: the code spans of each
  /// row's first cell (its folder, or its types) and of the whole row.
  func table(headed header: String) -> [(first: [String], all: [String])] {
    var rows: [(first: [String], all: [String])] = []
    var inTable = false
    for line in lines {
      if line.hasPrefix(header) {
        inTable = true
        continue
      }
      guard inTable, line.hasPrefix("|") else {
        inTable = false
        continue
      }
      let cells = line.split(separator: "|", omittingEmptySubsequences: false)
      guard cells.count > 2, !cells[1].contains("---") else { continue }
      rows.append((Self.codeSpans(in: String(cells[1])), Self.codeSpans(in: line)))
    }
    return rows
  }

  /// The text of each code span (between backticks) in `text`.
  static func codeSpans(in text: String) -> [String] {
    let parts = text.split(separator: "`", omittingEmptySubsequences: false)
    return stride(from: 1, to: parts.count, by: 2).map { String(parts[$0]) }
  }

  /// Whether `spans` list the file named `name` (without `.swift`).
  static func lists(_ name: String, in spans: [String]) -> Bool {
    if spans.contains(name) { return true }
    guard let plus = name.firstIndex(of: "+") else { return false }
    return spans.contains(String(name[..<plus])) && spans.contains(String(name[plus...]))
  }

  /// Every Swift file under `Sources/`: its path there, its name, and its table folder.
  static func swiftSources() throws -> [(path: String, name: String, folder: String)] {
    let sources = root.appendingPathComponent("Sources")
    var files: [(path: String, name: String, folder: String)] = []
    let walker = FileManager.default.enumerator(atPath: sources.path)
    while let path = walker?.nextObject() as? String {
      // A documentation catalog's code files (a tutorial's steps) are not compiled.
      guard path.hasSuffix(".swift"), !path.contains(".docc/") else { continue }
      var components = path.split(separator: "/").map(String.init)
      let name = String(components.removeLast().dropLast(".swift".count))
      if components.first == "Flowchart" { components.removeFirst() }
      let folder = components.isEmpty ? "" : components.joined(separator: "/") + "/"
      files.append((path, name, folder))
    }
    return files.sorted { $0.path < $1.path }
  }

  /// Every type that Sources declares, or extends, `@unchecked Sendable`, with its file.
  static func uncheckedSendableTypes() throws -> [(type: String, path: String)] {
    var types: [(type: String, path: String)] = []
    for file in try swiftSources() {
      let text = try String(
        contentsOf: root.appendingPathComponent("Sources").appendingPathComponent(file.path),
        encoding: .utf8)
      for line in text.components(separatedBy: "\n") {
        let code = line.trimmingCharacters(in: .whitespaces)
        guard !code.hasPrefix("//"), code.contains("@unchecked Sendable") else { continue }
        let words = code.split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "_" })
        guard
          let keyword = words.firstIndex(where: {
            ["class", "struct", "enum", "actor", "extension"].contains($0)
          }), keyword + 1 < words.count
        else { continue }
        types.append((String(words[keyword + 1]), file.path))
      }
    }
    return types
  }
}
