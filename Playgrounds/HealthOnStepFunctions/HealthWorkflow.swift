// The Health workflow, shared by the worker's two jobs: `export` writes it as an Amazon States
// Language definition, and `handle` answers its tasks. Both must use the same chart: a task's
// payload names its state by name and ID, which the worker checks against this chart.

import Flowchart

/// The test subject: the answers the decisions read, and what the exercises leave behind.
/// `Codable`, so that it travels as the execution's JSON document.
struct Subject: Codable, Sendable {
  var isWillingToExercise: Bool
  var isInjured: Bool
  var log: [String] = []
}

/// What the workflow concludes about the subject.
enum Verdict: String, Sendable {
  case healthy = "Healthy"
  case unhealthy = "Unhealthy"
  case inconclusive = "Inconclusive"
}

/// The Health workflow of `Playgrounds/Health`, with its code: exercising takes time, so those
/// two actions are `async`; the final condition's decision is the run's result.
func makeHealthWorkflow() throws(DefinitionError) -> Flowchart<Subject> {
  // Left unformatted so that each decision stays on its condition's line, like the tree.
  // swift-format-ignore
  try Flowchart<Subject>(
    outcomes: Outcomes<Verdict>(mapsEveryEnd: true) {
      OutcomeRule(.healthy, at: "Do sit-ups")
      OutcomeRule(.inconclusive, at: "Injured?", deciding: .yes)
      OutcomeRule(.unhealthy, at: "Injured?", deciding: .no)
    }
  ) {
    Condition("Willing to exercise?") { $0.isWillingToExercise } yes: {
      Action("Lift weights") { subject in
        try await Task.sleep(for: .milliseconds(30))
        subject.log.append("lifted weights")
      }
      Action("Do sit-ups", isFinal: true) { subject in
        try await Task.sleep(for: .milliseconds(10))
        subject.log.append("did sit-ups")
      }
    } no: {
      // Final, yet it still decides: its decision is the run's result.
      Condition("Injured?", isFinal: true) { $0.isInjured }
    }
  }
}
