import Flowchart

/// What the workflow knows about the person it checks.
struct Subject: Sendable {
  var isWillingToExercise = false
  var isInjured = false
  var log: [String] = []
}
