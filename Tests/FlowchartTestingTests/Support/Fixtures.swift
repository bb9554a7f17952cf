import Flowchart

/// The test subject of JASWorkflow's Health workflow, as in `Playgrounds/Health`.
struct Subject: Sendable {
  var isWillingToExercise = false
  var isInjured = false
  var log: [String] = []
}

/// Records that the code of a state ran; thrown by code that a script must not run.
struct CodeRan: Error, Equatable {
  var state: String
}

/// The Health workflow of `Playgrounds/Health`: a decision, two asynchronous actions, and a
/// final condition whose decision is the run's result. Its asynchronous actions log what
/// they did instead of sleeping.
func healthWorkflow() throws -> Flowchart<Subject> {
  // swift-format-ignore
  try Flowchart<Subject> {
    Condition("Willing to exercise?") { $0.isWillingToExercise } yes: {
      Action("Lift weights") { subject in
        await Task.yield()
        subject.log.append("lifted weights")
      }
      Action("Do sit-ups", isFinal: true) { subject in
        await Task.yield()
        subject.log.append("did sit-ups")
      }
    } no: {
      Condition("Injured?", isFinal: true) { $0.isInjured }
    }
  }
}

/// A context for the small charts of the route and coverage tests.
struct Counter: Sendable {
  var count = 0
  var log: [String] = []
}

/// A retry loop: `Fetch`, then `Failed?` goes back to `Fetch` (yes) or on to `Done` (no).
func retryLoop() throws -> Flowchart<Counter> {
  // swift-format-ignore
  try Flowchart<Counter> {
    Action("Fetch") { $0.count += 1 }
    Condition("Failed?") { $0.count < 3 } yes: {
      GoTo("Fetch")
    } no: {
      Action("Done", isFinal: true)
    }
  }
}

/// How a multiple condition routes: an enum key.
enum Plan: String, Sendable, CaseIterable {
  case free, pro, team
}

/// A chart with every kind of state: a multiple condition with a default, a dispatch of two
/// branches (one of which decides), a join by name.
func everyKindChart() throws -> Flowchart<Counter> {
  // swift-format-ignore
  try Flowchart<Counter> {
    MultipleCondition("Plan?") { _ in Plan.free } exits: {
      Case(Plan.free) { Action("Show ads") { $0.log.append("ads") } }
      Case(.pro) { GoTo("Sync") }
      Default { Action("Invite team") { $0.log.append("invite") } }
    }
    Dispatch("Sync") { context, branch in
      context.log += branch.log
    } branches: {
      Branch {
        Action("Upload", isFinal: true) { $0.log.append("upload") }
      }
      Branch {
        Condition("Has changes?") { _ in true } yes: {
          Action("Download", isFinal: true) { $0.log.append("download") }
        } no: {
          Action("Skip", isFinal: true)
        }
      }
    }
    Action("Done", isFinal: true)
  }
}

/// What the Health workflow concludes about the subject.
enum Outcome: Equatable {
  case healthy, unhealthy, inconclusive
}

/// The outcome of a run of the Health workflow: its final state and what it decided.
func outcome(of result: RunResult<Subject>) -> Outcome? {
  switch (result.finalStateName, result.decision) {
  case ("Do sit-ups", .done): .healthy
  case ("Injured?", .yes): .inconclusive
  case ("Injured?", .no): .unhealthy
  default: nil
  }
}
