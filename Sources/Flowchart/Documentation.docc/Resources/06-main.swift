import Flowchart

let health = try healthWorkflow()
let handle = health.start(with: Subject(isWillingToExercise: true), isPaused: true, isLogged: true)
let events = handle.events()
handle.resume()
for await event in events {
  print(event.kind)  // run started
}
let result = try await handle.result
print(result.outcome(as: Verdict.self) == .healthy)  // true
print(handle.log)
//   …s  run started at 'Willing to exercise?'
//   …
//   …s  'Lift weights' finished in …s
//             log: [] → ["lifted weights"]
//   …
//   …s  run finished at 'Do sit-ups', outcome healthy, after 3 states
