// DurableOrder: a run that outlives its process. The first invocation starts an order, which
// waits for a manager's approval; the run is saved in a directory run store and the process
// exits. The second invocation (another process: nothing of the first is in memory) lists the
// store, resumes the run from its snapshot, sends the approval and finishes it, then prints the
// run log across both processes.
//
// A snapshot holds where the run stands, its context and its path, not the first process's log
// lines: the first invocation writes them in a file beside the run's (`<run id>.log`), and the
// second prints them before its own.
//
// Run it twice: `swift run DurableOrder [directory]` (the directory defaults to
// `flowchart-durable-order` under the system's temporary directory).

import Flowchart
import FlowchartStores
import Foundation

struct Order: Codable, Sendable {
  var number = 1042
  var items = ["Photo book", "Prints (x12)"]
  var total = 64.90
  var approvedBy: String?
  var isCharged = false
  var isShipped = false
}

/// The chart, built anew by each invocation.
func orderChart() throws -> Flowchart<Order> {
  try Flowchart<Order> {
    Action("Receive order") { _ in }
    Wait("Approve", for: String.self) { order, manager in order.approvedBy = manager }
    Action("Charge") { order in
      // Across a crash a state's code is at-least-once: key its effect by the run's id.
      let idempotencyKey = "\(RunInfo.current?.runID.text ?? "local")-charge"
      print("Charging \(order.total) with the idempotency key \(idempotencyKey)")
      order.isCharged = true
    }
    Action("Ship", isFinal: true) { $0.isShipped = true }
  }
}

let directory =
  CommandLine.arguments.dropFirst().first
  ?? FileManager.default.temporaryDirectory.appendingPathComponent("flowchart-durable-order").path
let store = try DirectoryRunStore(directory: directory)
let chartName = "durable-order"

/// The file beside the run's that keeps the first process's log lines.
func logFile(of id: RunID) -> URL {
  URL(fileURLWithPath: directory).appendingPathComponent("\(id).log")
}

let waiting = try await store.list(matching: .waitingForInput(at: "Approve"))
if let stored = waiting.first {
  print("The store \(directory) holds:")
  for run in try await store.list() {
    print("  \(run.id)  \(run.status)  (chart '\(run.chart)', saved \(run.updated))")
  }
  print("\nResuming \(stored.id) and approving it.")
  let run = try await orderChart().start(
    resuming: stored.id, in: store, chart: chartName, isLogged: true)
  try run.send("Maria (manager)", to: "Approve")
  let status = try await run.rested()
  let result = try await run.handle.result
  let earlier = (try? String(contentsOf: logFile(of: stored.id), encoding: .utf8)) ?? ""
  print("\nThe run log, first process:")
  print(earlier, terminator: earlier.hasSuffix("\n") ? "" : "\n")
  print("\nThe run log, second process:")
  print(run.handle.log)
  print(
    "\nThe run \(status): \(result.pathNames.joined(separator: " -> ")); approved by \(result.context.approvedBy ?? "nobody"), charged: \(result.context.isCharged), shipped: \(result.context.isShipped)."
  )
  // Leave the store empty, so that the next invocation starts a new order.
  try await store.delete(stored.id)
  try? FileManager.default.removeItem(at: logFile(of: stored.id))
} else {
  let id = RunID("order-1042")!
  let run = try orderChart().start(
    with: Order(), id: id, chart: chartName, store: store, isLogged: true)
  let status = try await run.rested()
  let log = run.handle.log.description
  try Data((log + "\n").utf8).write(to: logFile(of: id))
  print("The run log, first process:")
  print(log)
  print("\nThe run is \(status), saved in \(directory) as \(id).")
  print(
    "Run again to approve: swift run DurableOrder\(CommandLine.arguments.count > 1 ? " \(directory)" : "")"
  )
}
