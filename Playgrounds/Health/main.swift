// Health: JASWorkflow's Health workflow — a decision, asynchronous work, a final condition whose
// decision is the result — run down every route, each (final state, decision) pair mapped to an
// outcome, then a run cancelled while an asynchronous step is under way. Then a check-up that
// uses the rest of the language: a dispatch whose branches measure in parallel, a multiple
// condition over an enum, a join by `GoTo`, and what compiling says about a declaration with
// mistakes.
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
    print("  path: \(result.pathNames.joined(separator: " → "))")
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

/// How fit the subject says they are: a multiple condition's key.
enum Fitness: String, Sendable, CaseIterable {
  case athlete, active, sedentary
}

/// A check-up: what is measured, and the advice it leads to.
struct Checkup: Sendable {
  var fitness: Fitness
  var pulse: Int?
  var bloodPressure: String?
  var advice: [String] = []
}

/// Measures pulse and blood pressure at once, then advises by fitness level. An `active`
/// subject needs no advice of their own and joins the report by name.
func makeCheckup() throws(DefinitionError) -> Flowchart<Checkup> {
  // swift-format-ignore
  try Flowchart<Checkup> {
    Dispatch("Take measurements") { checkup, branch in
      checkup.pulse = checkup.pulse ?? branch.pulse
      checkup.bloodPressure = checkup.bloodPressure ?? branch.bloodPressure
    } branches: {
      Branch {
        Action("Measure pulse", isFinal: true) { checkup in
          try await Task.sleep(for: .milliseconds(50))
          checkup.pulse = 62
        }
      }
      Branch {
        Action("Measure blood pressure", isFinal: true) { checkup in
          try await Task.sleep(for: .milliseconds(50))
          checkup.bloodPressure = "120/80"
        }
      }
    }
    MultipleCondition("Fitness level?") { $0.fitness } exits: {
      Case(.athlete) { Action("Keep training") { $0.advice.append("keep training") } }
      Case(.active) { GoTo("Write the report") }
      Case(.sedentary) { Action("Walk every day") { $0.advice.append("walk every day") } }
    }
    Action("Write the report", isFinal: true) { checkup in
      checkup.advice.append("pulse \(checkup.pulse ?? 0), pressure \(checkup.bloodPressure ?? "?")")
    }
  }
}

/// The same check-up with two slips: a misspelled `GoTo` and an advice with nowhere to go.
func makeBrokenCheckup() throws(DefinitionError) -> Flowchart<Checkup> {
  // swift-format-ignore
  try Flowchart<Checkup> {
    MultipleCondition("Fitness level?") { $0.fitness } exits: {
      Case(.athlete) { GoTo("Write report") }
      Case(.active) { GoTo("Write the report") }
      Case(.sedentary) { Action("Walk every day") { $0.advice.append("walk every day") } }
    }
    Action("Write the report") { $0.advice.append("report") }
  }
}

func showCheckup() async throws {
  let checkup = try makeCheckup()
  print()
  print(checkup)
  print()
  for fitness in Fitness.allCases {
    let result = try await checkup.run(with: Checkup(fitness: fitness))
    print("\(fitness.rawValue) → \(result.context.advice.joined(separator: "; "))")
    print("  path: \(result.pathNames.joined(separator: " → "))")
  }

  print()
  do {
    _ = try makeBrokenCheckup()
  } catch {
    print(error)
  }
}

try await showHealth()
try await showCheckup()

#if canImport(Playgrounds)
  import Playgrounds

  #Playground("Health workflow") {
    try await showHealth()
    try await showCheckup()
  }
#endif
