import FlowchartFiles
import Foundation
import Testing

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// The schema files in `Schemas/` stay well-formed and name everything the readers accept.
struct SchemaTests {
  let schemas = samplesFolder.deletingLastPathComponent().appendingPathComponent("Schemas")

  @Test func theJSONSchemaIsJSONAndNamesEveryKey() throws {
    let data = try Data(contentsOf: schemas.appendingPathComponent("flowchart.schema.json"))
    let schema = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    #expect(schema["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
    let text = String(decoding: data, as: UTF8.self)
    let keys = [
      "flowchart", "entryPoints", "action", "condition", "multipleCondition", "dispatch", "goTo",
      "include", "final", "run", "store", "path", "value", "test", "yes", "no", "exits", "case",
      "states", "default", "merge", "branches", "name", "equal", "less", "greater", "present",
      "matches", "pattern", "all", "any", "not", "maxConcurrency", "join", "after", "wait",
      "storeAt", "subflow", "chart", "context", "mapping", "map", "over", "into",
      "toleratedFailures", "outcomes", "mapsEveryEnd", "rules", "outcome", "decision", "key",
      "timeout", "retry",
      "catch", "count", "backoff", "delay", "initial", "multiplier", "maximum", "jitter", "seed",
      "errors", "fail", "changes", "seconds", "until",
    ]
    for key in keys {
      #expect(text.contains("\"\(key)\""), "the JSON Schema does not name \"\(key)\"")
    }
  }

  @Test func theXMLSchemaIsWellFormedAndNamesEveryElementAndAttribute() throws {
    let data = try Data(contentsOf: schemas.appendingPathComponent("flowchart.xsd"))
    #expect(XMLParser(data: data).parse())
    let text = String(decoding: data, as: UTF8.self)
    let names = [
      "flowchart", "entryPoint", "action", "storeValue", "condition", "yes", "no",
      "multipleCondition", "case", "default", "dispatch", "branch", "goTo", "include", "equal",
      "less", "greater", "present", "matches", "all", "any", "not", "state", "path", "name",
      "final", "run", "value", "type", "key", "merge", "pattern", "maxConcurrency", "join",
      "after", "wait", "storeAt", "subflow", "chart", "context", "mapping", "map", "over", "into",
      "toleratedFailures", "outcomes", "outcome", "mapsEveryEnd", "decision", "timeout",
      "retry", "catch", "goTo", "count", "backoff", "delay", "initial", "multiplier", "maximum",
      "jitter", "seed", "errors", "fail", "changes", "seconds", "until",
    ]
    for name in names {
      #expect(text.contains("name=\"\(name)\""), "the XML Schema does not name \(name)")
    }
  }
}
