// Health: JASWorkflow's Health workflow — a decision, asynchronous work, a final condition whose
// decision is the result — run down every route, each (final state, decision) pair mapped to an
// outcome, then a run cancelled while an asynchronous step is under way.
// Run it with `swift run Health`.

import Flowchart

/// The test subject: the answers the decisions read, and what the exercises leave behind.
struct Subject: Sendable {
  var isWillingToExercise: Bool
  var isInjured: Bool
  var log: [String] = []
}

/// What the workflow concludes about the subject.
enum Outcome: String {
  case healthy = "Healthy"
  case unhealthy = "Unhealthy"
  case inconclusive = "Inconclusive"
}

/// The Health workflow. Exercising takes time, so those two actions are `async`.
func makeHealthWorkflow() throws(DefinitionError) -> Flowchart<Subject> {
  // Left unformatted so that each decision stays on its condition's line, like the tree.
  // swift-format-ignore
  try Flowchart<Subject> {
    Condition("Willing to exercise?") { $0.isWillingToExercise } yes: {
      Action("Lift weights") { subject in
        try await Task.sleep(for: .milliseconds(300))
        subject.log.append("lifted weights")
      }
      Action("Do sit-ups", isFinal: true) { subject in
        try await Task.sleep(for: .milliseconds(100))
        subject.log.append("did sit-ups")
      }
    } no: {
      // Final, yet it still decides: its decision is the run's result.
      Condition("Injured?", isFinal: true) { $0.isInjured }
    }
  }
}

/// JASWorkflow's `ifFinalNode:producesResult:evaluateTo:`: a run ends with a final state and
/// what it decided, and that pair names the outcome.
func outcome(of result: RunResult<Subject>) -> Outcome? {
  switch (result.finalStateName, result.decision) {
  case ("Do sit-ups", .done): .healthy
  case ("Injured?", .yes): .inconclusive
  case ("Injured?", .no): .unhealthy
  default: nil
  }
}

func showHealth() async throws {
  let workflow = try makeHealthWorkflow()
  print(workflow)
  print()

  let subjects: [(title: String, subject: Subject)] = [
    ("Willing to exercise", Subject(isWillingToExercise: true, isInjured: false)),
    ("Unwilling, injured", Subject(isWillingToExercise: false, isInjured: true)),
    ("Unwilling, not injured", Subject(isWillingToExercise: false, isInjured: false)),
  ]
  for (title, subject) in subjects {
    let result = try await workflow.run(with: subject)
    let verdict = outcome(of: result)?.rawValue ?? "no outcome"
    print("\(title) → \(verdict)")
    print("  final state: \(result.finalStateName), decision: \(result.decision)")
    print("  path: \(result.path.map { workflow[$0].name }.joined(separator: " → "))")
    print("  log: \(result.context.log)")
  }

  // Cancel a run while "Lift weights" sleeps: the sleep throws, and the run reports where it
  // stopped and the path that led there.
  let willing = Subject(isWillingToExercise: true, isInjured: false)
  let run = Task { try await workflow.run(with: willing) }
  try await Task.sleep(for: .milliseconds(100))
  run.cancel()
  do {
    _ = try await run.value
    print("The run finished before it was cancelled.")
  } catch let error as RunError {
    print("Cancelled run")
    print("  kind: \(error.kind)")
    print("  state: \(error.stateName)")
    print("  description:")
    for line in error.description.split(separator: "\n") {
      print("    \(line)")
    }
  }
}

try await showHealth()

#if canImport(Playgrounds)
  import Playgrounds

  #Playground("Health workflow") {
    try await showHealth()
  }
#endif
