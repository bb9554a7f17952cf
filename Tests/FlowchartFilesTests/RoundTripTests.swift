import Flowchart
import FlowchartFiles
import Foundation
import Testing

/// What a compiled state is, its location aside: a file's locations change when it is
/// written again.
struct StateShape: Hashable {
  var name: String
  var kind: StateKind
  var isFinal: Bool
  var isAsynchronous: Bool
  var exits: [Exit]
  var isTopLevel: Bool

  init(_ info: StateInfo) {
    name = info.name
    kind = info.kind
    isFinal = info.isFinal
    isAsynchronous = info.isAsynchronous
    exits = info.exits
    isTopLevel = info.isTopLevel
  }
}

/// The compiled chart's tree and states, or the problems' kinds and messages.
func graph(of file: ChartFile) -> String {
  do throws(DefinitionError) {
    let chart = try file.flowchart(handlers: randomChartHandlers())
    let states = chart.states.map { StateShape(chart[$0]) }
    return chart.treeDescription + "\n" + "\(states)" + "\(chart.entryPoints)"
  } catch {
    // Sorted: the written file's locations order the problems differently.
    // Messages may name a location ("declared at random:5:1"), which writing changes.
    return error.problems.map {
      "\($0.kind) \($0.name ?? "") \($0.message.replacing(/random:[0-9]+(:[0-9]+)?/, with: "random"))"
    }.sorted()
      .joined(separator: "\n")
  }
}

struct RoundTripTests {
  /// Writes `file` in `syntax`, reads it back, and expects the same tree and graph.
  func expectRoundTrip(
    _ file: ChartFile, sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) throws {
    let original = graph(of: file)
    for syntax in ChartSyntax.allCases {
      let text = try file.checkedText(in: syntax)
      #expect(text == file.text(in: syntax), sourceLocation: sourceLocation)
      var reread = try ChartFile.parse(text, syntax: syntax, path: file.path)
      // The files it includes and runs are read as they were: only this file is written.
      reread.includedFiles = file.includedFiles
      #expect(reread.text(in: syntax) == text, sourceLocation: sourceLocation)
      for other in ChartSyntax.allCases {
        #expect(reread.text(in: other) == file.text(in: other), sourceLocation: sourceLocation)
      }
      #expect(graph(of: reread) == original, sourceLocation: sourceLocation)
    }
  }

  @Test(arguments: sampleNames, ChartSyntax.allCases)
  func everySampleReadsBackAsTheSameGraph(name: String, syntax: ChartSyntax) throws {
    let file = try ChartFile.read(contentsOf: sampleURL(name, syntax))
    try expectRoundTrip(file)
  }

  @Test func randomChartsReadBackAsTheSameGraph() async throws {
    let seeds =
      ProcessInfo.processInfo.environment["FLOWCHART_FILES_SEEDS"].flatMap(Int.init) ?? 300
    var compiled = 0
    for seed in 0..<UInt64(seeds) {
      if seed % 20 == 0 { await Task.yield() }  // Lets the other suites' tasks run.
      var random = RandomChart(seed: seed)
      let file = random.file()
      try expectRoundTrip(file)
      if (try? file.flowchart(handlers: randomChartHandlers())) != nil { compiled += 1 }
    }
    // The generator draws charts that compile as well as charts with mistakes.
    #expect(compiled > seeds / 20)
    #expect(compiled < seeds)
  }

  @Test func stringsXMLCannotHoldAreWrittenAsJSONAndReadBack() throws {
    for text in RandomChart.unruly {
      let file = try ChartFile.parse(
        "{\"flowchart\": [{\"action\": \"Save\", \"final\": true, \"store\": [{\"path\": \"note\", \"value\": \(ChartValue.string(text).jsonText)}]}]}",
        syntax: .json, path: "note.json")
      for syntax in ChartSyntax.allCases {
        let written = try file.checkedText(in: syntax)
        let reread = try ChartFile.parse(written, syntax: syntax, path: "note")
        guard case .action(let action) = reread.states.first?.kind else {
          Issue.record("Expected an action")
          continue
        }
        #expect(action.stores.first?.value == .string(text), "\(syntax): \(written)")
      }
    }
  }

  @Test func anAttributeXMLCannotHoldIsRefusedByName() throws {
    let file = try ChartFile.parse(
      #"{"flowchart": [{"action": "Save", "final": true, "store": [{"path": "no\u0001te", "value": 1}]}]}"#,
      syntax: .json, path: "note.json")
    #expect {
      _ = try file.checkedText(in: .xml)
    } throws: { error in
      "\(error)"
        == "The chart cannot be written as XML: the attribute path of <storeValue> of state 'Save' holds U+0001, a control character that XML 1.0 cannot hold, even escaped. Remove the character, or keep the chart in JSON."
    }
    // JSON holds it, and reads it back.
    let json = try file.checkedText(in: .json)
    #expect(try ChartFile.parse(json, syntax: .json, path: "note.json").text(in: .json) == json)
    let key = try ChartFile.parse(
      #"{"flowchart": [{"multipleCondition": "Pick", "value": "k", "exits": [{"case": "a\uFFFE", "states": [{"action": "A", "final": true}]}]}]}"#,
      syntax: .json, path: "key.json")
    #expect {
      _ = try key.checkedText(in: .xml)
    } throws: { error in
      (error as? ChartWritingError)
        == ChartWritingError(
          stateName: "Pick", element: "case", attribute: "key", character: "\u{FFFE}")
    }
  }
}
