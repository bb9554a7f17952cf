import Flowchart

let health = try healthWorkflow()
print(health)

let willing = Subject(isWillingToExercise: true)
let result = try await health.run(with: willing)
print(result.pathNames)  // ["Willing to exercise?", "Lift weights", "Do sit-ups"]
print(result.context.log)  // ["lifted weights", "did sit-ups"]
print(result.outcome(as: Verdict.self) == .healthy)  // true
