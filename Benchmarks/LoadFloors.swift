import Flowchart
import FlowchartFiles
import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

// The floors of the load rows (issue 26, "Floors for the rows that have none"): Foundation's
// parsers over the same bytes, building the same chart file's tree, then the same binding and
// compile as the load rows (`flowchart(handlers:)`). The real compile rather than one by hand,
// so that the ratio is what reading a file costs over Foundation's parsers: the compile has
// its own rows and its own floor, and counting its gap twice would hide the reader's.

/// Builds the tree of ``FileBenchmarks/chartFile(states:)``'s files (actions and conditions
/// with `yes` and `no` blocks) from what Foundation's parsers read.
enum LoadFloors {
  /// The JSON file `data` through `JSONSerialization`: the objects' members, walked.
  static func parseJSON(_ data: Data) throws -> ChartFile {
    guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
      let states = root["flowchart"] as? [Any]
    else { throw BenchmarkError.mismatch("JSONSerialization: no \"flowchart\" array") }
    return ChartFile(path: "bench", states: try nodes(states))
  }

  private static let location = SourceLocation(fileID: "bench", line: 1)

  private static func nodes(_ values: [Any]) throws -> [ChartNode] {
    try values.map { value in
      guard let object = value as? [String: Any] else {
        throw BenchmarkError.mismatch("JSONSerialization: a state is not an object")
      }
      if let name = object["action"] as? String {
        return ChartNode(
          .action(
            ChartAction(
              name: name, isFinal: object["final"] as? Bool ?? false,
              handler: object["run"] as? String)), at: location)
      }
      guard let name = object["condition"] as? String, let run = object["run"] as? String else {
        throw BenchmarkError.mismatch("JSONSerialization: neither an action nor a condition")
      }
      return ChartNode(
        .condition(
          ChartCondition(
            name: name, isFinal: object["final"] as? Bool ?? false, decision: .handler(run),
            yes: try (object["yes"] as? [Any]).map(nodes),
            no: try (object["no"] as? [Any]).map(nodes))),
        at: location)
    }
  }

  /// The XML file `data` through `XMLParser`, whose delegate sees every element.
  static func parseXML(_ data: Data) throws -> ChartFile {
    let builder = XMLBuilder()
    let parser = XMLParser(data: data)
    parser.shouldProcessNamespaces = false
    parser.shouldResolveExternalEntities = false
    parser.delegate = builder
    guard parser.parse(), builder.failure == nil, let states = builder.blocks.first else {
      throw BenchmarkError.mismatch(
        "XMLParser: \(builder.failure ?? parser.parserError.map { "\($0)" } ?? "no chart")")
    }
    return ChartFile(path: "bench", states: states)
  }

  /// Builds the states as `XMLParser` reports the elements: a stack of the blocks being read
  /// (the chart's, then each open `yes` or `no`) and of the conditions they belong to.
  private final class XMLBuilder: NSObject, XMLParserDelegate {
    /// The blocks being read, innermost last; the first is the chart's.
    var blocks: [[ChartNode]] = [[]]
    /// The conditions being read, innermost last, with the blocks read so far.
    var conditions: [(name: String, run: String, yes: [ChartNode]?, no: [ChartNode]?)] = []
    var failure: String?

    func parser(
      _ parser: XMLParser, didStartElement element: String, namespaceURI: String?,
      qualifiedName: String?, attributes: [String: String] = [:]
    ) {
      switch element {
      case "flowchart": break
      case "action":
        blocks[blocks.count - 1].append(
          ChartNode(
            .action(
              ChartAction(
                name: attributes["name"] ?? "", isFinal: attributes["final"] == "true",
                handler: attributes["run"])), at: LoadFloors.location))
      case "condition":
        conditions.append((attributes["name"] ?? "", attributes["run"] ?? "", nil, nil))
      case "yes", "no": blocks.append([])
      default: failure = "unexpected <\(element)>"
      }
    }

    func parser(
      _ parser: XMLParser, didEndElement element: String, namespaceURI: String?,
      qualifiedName: String?
    ) {
      switch element {
      case "yes": conditions[conditions.count - 1].yes = blocks.removeLast()
      case "no": conditions[conditions.count - 1].no = blocks.removeLast()
      case "condition":
        let condition = conditions.removeLast()
        blocks[blocks.count - 1].append(
          ChartNode(
            .condition(
              ChartCondition(
                name: condition.name, decision: .handler(condition.run), yes: condition.yes,
                no: condition.no)), at: LoadFloors.location))
      default: break
      }
    }
  }

  /// Throws unless `loaded` and `floor` are the same chart: as many states, with the same
  /// names, kinds, finality and exits.
  static func expectSame<Context>(
    _ floor: Flowchart<Context>, as loaded: Flowchart<Context>, _ what: String
  ) throws {
    try expect(floor.states.count, equals: loaded.states.count, "\(what): states")
    for id in loaded.states {
      let (expected, got) = (loaded[id], floor[id])
      guard
        got.name == expected.name, got.kind == expected.kind, got.isFinal == expected.isFinal,
        got.exits == expected.exits
      else {
        throw BenchmarkError.mismatch(
          "\(what): state \(id.index) is \(got.name) \(got.exits), loaded \(expected.name) "
            + "\(expected.exits)")
      }
    }
  }
}
