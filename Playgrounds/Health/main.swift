// Health: JASWorkflow's full Health demo — a decision, asynchronous work, a final condition whose
// decision is the result — with its outcomes declared with the chart and checked when it
// compiles, run down every route; then a live run, started twice (the second start is ignored
// while the first is going) and cancelled during "Lift weights", with its run log. Then a
// check-up that uses the rest of the language: a dispatch whose branches measure in parallel, a
// multiple condition over an enum, a join by `GoTo`, and what compiling says about a
// declaration with mistakes.
// Run it with `swift run Health`.

import Flowchart

/// The test subject: the answers the decisions read, and what the exercises leave behind.
struct Subject: Sendable {
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

/// The Health workflow. Exercising takes time, so those two actions are `async`. Its outcomes
/// are JASWorkflow's `ifFinalNode:producesResult:evaluateTo:`, checked against the chart when
/// it compiles: every way a run can end must have one.
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

/// JASWorkflow's workflow object: one run at a time; a second start while one is going is
/// ignored.
final class HealthCheck: Sendable {
  let workflow: Flowchart<Subject>
  // The package's own lock, so the playground runs from macOS 13; from macOS 15, use
  // Synchronization's `Mutex` the same way.
  private let running = Lock<RunHandle<Subject>?>(nil)

  init(workflow: Flowchart<Subject>) {
    self.workflow = workflow
  }

  /// Starts a logged run, unless one is going; returns the handle of the run that is going.
  func start(with subject: Subject) -> (handle: RunHandle<Subject>, isNew: Bool) {
    running.withLock { running in
      if let running, !running.hasEnded { return (running, false) }
      let handle = workflow.start(with: subject, isPaused: true, isLogged: true)
      running = handle
      return (handle, true)
    }
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
    let verdict = result.outcome(as: Verdict.self)?.rawValue ?? "no outcome"
    print("\(title) → \(verdict)")
    print("  final state: \(result.finalStateName), decision: \(result.decision)")
    print("  path: \(result.pathNames.joined(separator: " → "))")
    print("  log: \(result.context.log)")
  }

  // A live run, started twice, then cancelled while "Lift weights" sleeps: the handle's
  // events say when the run is there, so no guessing with a timer.
  let check = HealthCheck(workflow: workflow)
  let willing = Subject(isWillingToExercise: true, isInjured: false)
  let (handle, _) = check.start(with: willing)
  let events = handle.events()
  handle.resume()
  let (again, isNew) = check.start(with: willing)
  print()
  print("Second start while the first run is going: \(isNew ? "started" : "ignored")")
  precondition(!isNew && again == handle)
  for await event in events {
    print("  event: \(event.kind) \(event.stateName)")
    if case .stateEntered = event.kind, event.stateName == "Lift weights" {
      handle.cancel()
    }
  }
  do {
    _ = try await handle.result
    print("The run finished before it was cancelled.")
  } catch {
    print("Cancelled run")
    print("  kind: \(error.kind)")
    print("  state: \(error.stateName)")
    print("  description:")
    for line in error.description.split(separator: "\n") {
      print("    \(line)")
    }
  }
  print("  run log:")
  for line in handle.log.lines {
    print("    \(line)")
  }
  let (third, isNewAfterEnd) = check.start(with: willing)
  print("Start after the run ended: \(isNewAfterEnd ? "a new run" : "ignored")")
  third.cancel()
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
