import Flowchart
import FlowchartFiles
import Foundation

/// The Health workflow's subject, `Codable` so that it travels as the execution's document.
struct Subject: Codable, Sendable, Equatable {
  var isWillingToExercise: Bool
  var isInjured: Bool
  var log: [String] = []
}

/// The Health workflow of the playground and the tutorial, synchronous.
func healthChart() throws -> Flowchart<Subject> {
  try Flowchart<Subject> {
    Condition("Willing to exercise?") {
      $0.isWillingToExercise
    } yes: {
      Action("Lift weights") { $0.log.append("lifted weights") }
      Action("Do sit-ups", isFinal: true) { $0.log.append("did sit-ups") }
    } no: {
      Condition("Injured?", isFinal: true) { $0.isInjured }
    }
  }
}

/// The repository's root, from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A data-only chart file of the repository, compiled with no handlers.
func fileChart(_ path: String) throws -> Flowchart<ChartValue> {
  let file = try ChartFile.read(contentsOf: repositoryRoot.appendingPathComponent(path))
  return try file.flowchart(handlers: HandlerRegistry<ChartValue>())
}

/// An error a state of a test chart throws.
struct NetworkError: Error, CustomStringConvertible {
  var description: String { "the network is down" }
}

/// An HTTP error a state of a test chart throws.
struct UploadError: Error, CustomStringConvertible {
  var status: Int
  var description: String { "status \(status)" }
}

/// A context with a map over `Codable` elements.
struct Team: Codable, Sendable, Equatable {
  var members: [Subject]
  var done: [Subject] = []
}
