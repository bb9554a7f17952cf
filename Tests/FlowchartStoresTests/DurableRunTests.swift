import Flowchart
import Foundation
import Testing

@testable import FlowchartStores

/// An order waiting for a manager's approval.
struct Order: Codable, Sendable, Equatable {
  var number = 17
  var approvedBy: String?
  var shipped = false
}

/// The order chart, built anew each time: what each "process" of a test compiles for itself.
func orderChart() throws -> Flowchart<Order> {
  try Flowchart<Order> {
    Action("Receive") { _ in }
    Wait("Approve", for: String.self) { $0.approvedBy = $1 }
    Action("Ship", isFinal: true) { $0.shipped = true }
  }
}

@Suite struct DurableRunTests {
  @Test func aRunWaitingInADirectoryStoreIsFinishedByAnotherProcess() async throws {
    let directory = TemporaryDirectory("durable")
    let id = RunID("order-17")!
    // The first process: starts the run, which waits; saved when it rests.
    do {
      let store = try DirectoryRunStore(directory: directory.path)
      let run = try orderChart().start(with: Order(), id: id, chart: "orders", store: store)
      let status = try await run.rested()
      #expect(status == .waitingForInput(state: "Approve"))
    }
    // The second process: a chart and a store of its own, nothing shared but the directory.
    let store = try DirectoryRunStore(directory: directory.path)
    let waiting = try await store.list(matching: .waitingForInput(at: "Approve"))
    #expect(waiting.map(\.id) == [id])
    #expect(waiting.first?.chart == "orders")
    let chart = try orderChart()
    #expect(waiting.first?.fingerprint == chart.structuralFingerprint)
    let resumed = try await chart.start(resuming: id, in: store, chart: "orders")
    #expect(try await resumed.rested() == .waitingForInput(state: "Approve"))
    try resumed.send("Ann", to: "Approve")
    #expect(try await resumed.rested() == .finished)
    let result = try await resumed.handle.result
    #expect(result.context == Order(number: 17, approvedBy: "Ann", shipped: true))
    #expect(result.pathNames == ["Receive", "Approve", "Ship"])
    #expect(try await store.list().map(\.status) == [.finished])
    let stored = try await store.snapshot(id, as: Order.self)
    #expect(stored.status == .finished)
  }

  @Test func everyStateSavesTheRunAfterEachState() async throws {
    let store = InMemoryRunStore()
    let chart = try Flowchart<Order> {
      Action("One") { _ in }
      Action("Two") { _ in }
      Action("Three", isFinal: true) { $0.shipped = true }
    }
    let run = chart.start(with: Order(), chart: "steps", store: store, saving: .everyState)
    #expect(try await run.rested() == .finished)
    #expect(try await store.snapshot(run.id, as: Order.self).context.shipped)
  }

  @Test func aMissingRunIsAClearError() async throws {
    let store = InMemoryRunStore()
    let error = await #expect(throws: StoredSnapshotError.self) {
      _ = try await store.snapshot(RunID("nope")!, as: Order.self)
    }
    #expect(error?.kind == .noRun)
    #expect(
      error?.message
        == "No run 'nope' in the store: list its runs (`store.list()`, or `flowchart runs <directory>`) for the ids it holds."
    )
  }

  @Test func aRunOfAnotherChartIsRefusedAndKept() async throws {
    let store = InMemoryRunStore()
    let run = try orderChart().start(with: Order(), id: RunID("o1")!, chart: "orders", store: store)
    _ = try await run.rested()
    let error = await #expect(throws: StoredSnapshotError.self) {
      _ = try await orderChart().start(resuming: RunID("o1")!, in: store, chart: "invoices")
    }
    #expect(error?.kind == .otherChart(stored: "orders"))
    #expect(
      error?.message
        == "Run 'o1' is a run of chart 'orders', not of 'invoices': resume it with the chart it was started with."
    )
    #expect(try await store.list().map(\.status) == [.waitingForInput(state: "Approve")])
  }

  @Test func aSnapshotThatDoesNotDecodeSaysWhy() async throws {
    let store = InMemoryRunStore()
    let run = try orderChart().start(with: Order(), id: RunID("o2")!, chart: "orders", store: store)
    _ = try await run.rested()
    let error = await #expect(throws: StoredSnapshotError.self) {
      _ = try await store.snapshot(RunID("o2")!, as: Int.self)
    }
    #expect(error?.kind == .undecodable)
    #expect(
      error?.message.hasPrefix("Run 'o2' has a snapshot that does not decode as a run of Int: ")
        == true, "\(error?.message ?? "")")
  }
}
