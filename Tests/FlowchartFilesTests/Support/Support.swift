import Flowchart
import FlowchartFiles
import Foundation
import Testing

/// The repository's `Samples/` folder.
let samplesFolder = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent().appendingPathComponent("Samples")

/// The sample named `name` (`health`), in `syntax`.
func sampleURL(_ name: String, _ syntax: ChartSyntax) -> URL {
  samplesFolder.appendingPathComponent("\(name).\(syntax.rawValue)")
}

/// Every sample's name.
let sampleNames = [
  "first-launch", "health", "form", "order", "review", "gallery", "payment", "shop",
]

/// Parses `text` as a chart file named `test.json` or `test.xml`.
func parse(_ text: String, _ syntax: ChartSyntax) throws(DefinitionError) -> ChartFile {
  try ChartFile.parse(text, syntax: syntax, path: "test.\(syntax.rawValue)")
}

/// The lines `file:line:column: kind: message` of the problems of the error `body` throws, or
/// a failure when it throws nothing.
func problems(
  sourceLocation: Testing.SourceLocation = #_sourceLocation,
  _ body: () throws(DefinitionError) -> Void
) -> [String] {
  do throws(DefinitionError) {
    try body()
    Issue.record("Expected a DefinitionError", sourceLocation: sourceLocation)
    return []
  } catch {
    return error.problems.map { "\($0.location): \($0.kind): \($0.message)" }
  }
}

/// STWorkflow's launch context.
struct Launch: Sendable {
  var isFirstLaunch: Bool
  var passesOtherCheck: Bool
  var log: [String] = []
}

/// The handlers of `first-launch`.
func launchHandlers() -> HandlerRegistry<Launch> {
  var handlers = HandlerRegistry<Launch>()
  handlers["isFirstLaunch"] = .condition { $0.isFirstLaunch }
  handlers["passesOtherCheck"] = .condition { $0.passesOtherCheck }
  handlers["fetchSomething"] = .action { $0.log.append("fetched") }
  handlers["logSomething"] = .action { $0.log.append("logged") }
  return handlers
}

/// JASWorkflow's health subject.
struct Subject: Sendable {
  var isWillingToExercise: Bool
  var isInjured: Bool
  var log: [String] = []
}

/// The handlers of `health`: asynchronous exercises.
func healthHandlers() -> HandlerRegistry<Subject> {
  var handlers = HandlerRegistry<Subject>()
  handlers["isWillingToExercise"] = .condition { $0.isWillingToExercise }
  handlers["isInjured"] = .condition { $0.isInjured }
  handlers["liftWeights"] = .action { subject async in subject.log.append("lifted weights") }
  handlers["doSitUps"] = .action { subject async in subject.log.append("did sit-ups") }
  return handlers
}

/// Expects `actual` to equal `expected`; on a mismatch, shows both.
func expectText(
  _ actual: String, _ expected: String,
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
  #expect(actual == expected, sourceLocation: sourceLocation)
}

/// The package's seeded generator (SplitMix64), so every randomized case can be re-run
/// from its seed.
typealias SeededGenerator = SplitMix64
