import Flowchart

/// What the workflow knows about the person it checks.
struct Subject: Sendable {
  var isWillingToExercise = false
  var isInjured = false
  var log: [String] = []
}

/// How a check-up comes out.
enum Verdict: Hashable, Sendable { case healthy, unhealthy, inconclusive }

/// JASWorkflow's Health workflow.
func healthWorkflow() throws -> Flowchart<Subject> {
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
      Condition("Injured?", isFinal: true) { $0.isInjured }
    }
  }
}
