import Flowchart
import Foundation
import Testing

@testable import FlowchartStores

/// What every run store promises (``RunStore``), checked on each: the in-memory store, the
/// directory store and, with the `SQLite` trait, the SQLite store.
@Suite struct StoreConformanceTests {
  @Test(arguments: StoreKind.allCases)
  func aSavedRunLoadsBackAsSaved(_ kind: StoreKind) async throws {
    let (store, directory) = try kind.make()
    for run in Runs.everyStatus {
      try await store.save(run)
    }
    for run in Runs.everyStatus {
      #expect(try await store.load(run.id) == run)
    }
    _ = directory
  }

  @Test(arguments: StoreKind.allCases)
  func aSaveReplacesTheRunOfItsId(_ kind: StoreKind) async throws {
    let (store, directory) = try kind.make()
    try await store.save(Runs.run("order-1", snapshot: Array(repeating: 1, count: 5000)))
    let second = Runs.run(
      "order-1", .waitingForInput(state: "Approve"), snapshot: [2, 3],
      updated: Runs.time.advanced(by: .seconds(1)))
    try await store.save(second)
    #expect(try await store.load(second.id) == second)
    #expect(try await store.list() == [second.summary])
    _ = directory
  }

  @Test(arguments: StoreKind.allCases)
  func aMissingIdLoadsAsNilAndDeletesAsFalse(_ kind: StoreKind) async throws {
    let (store, directory) = try kind.make()
    try await store.save(Runs.run("present"))
    #expect(try await store.load(Runs.id("absent")) == nil)
    #expect(try await store.delete(Runs.id("absent")) == false)
    #expect(try await store.list().map(\.id) == [Runs.id("present")])
    _ = directory
  }

  @Test(arguments: StoreKind.allCases)
  func aDeletedRunIsGone(_ kind: StoreKind) async throws {
    let (store, directory) = try kind.make()
    try await store.save(Runs.run("one"))
    try await store.save(Runs.run("two"))
    #expect(try await store.delete(Runs.id("one")) == true)
    #expect(try await store.load(Runs.id("one")) == nil)
    #expect(try await store.list().map(\.id) == [Runs.id("two")])
    #expect(try await store.delete(Runs.id("one")) == false)
    _ = directory
  }

  @Test(arguments: StoreKind.allCases)
  func listingFiltersByStatusStateAndChart(_ kind: StoreKind) async throws {
    let (store, directory) = try kind.make()
    for run in Runs.everyStatus.reversed() {
      try await store.save(run)
    }
    func ids(_ filter: RunFilter) async throws -> [String] {
      try await store.list(matching: filter).map(\.id.text)
    }
    #expect(try await ids(.all) == Runs.everyStatus.map(\.id.text))
    #expect(try await ids(.waitingForInput(at: "Approve")) == ["c-approve", "d-approve"])
    #expect(try await ids(.waitingForInput(at: "Nowhere")) == [])
    #expect(
      try await ids(RunFilter(statuses: ["failed", "cancelled"]))
        == ["g-failed", "h-failed", "i-cancelled"])
    #expect(try await ids(RunFilter(state: "Charge")) == ["g-failed"])
    #expect(try await ids(RunFilter(statuses: ["waitingUntil"])) == ["f-until"])
    #expect(try await ids(RunFilter(chart: "Refunds")) == ["d-approve"])
    #expect(
      try await ids(RunFilter(statuses: ["waitingForInput"], state: "Approve", chart: "Orders"))
        == ["c-approve"])
    #expect(try await ids(RunFilter(statuses: [])) == [])
    let listed = try await store.list()
    #expect(listed == Runs.everyStatus.map(\.summary))
    let listing = try await store.listing(matching: .all)
    #expect(listing == RunListing(runs: listed, problems: []))
    _ = directory
  }

  @Test(arguments: StoreKind.allCases)
  func emptyAndLargeSnapshotsKeepTheirBytes(_ kind: StoreKind) async throws {
    let (store, directory) = try kind.make()
    var generator = SeededGenerator(seed: 7)
    let large = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
    let runs = [Runs.run("empty", snapshot: []), Runs.run("large", snapshot: large)]
    for run in runs { try await store.save(run) }
    for run in runs { #expect(try await store.load(run.id) == run) }
    _ = directory
  }

  @Test(arguments: StoreKind.allCases)
  func manyRunsListInTheOrderOfTheirIds(_ kind: StoreKind) async throws {
    let (store, directory) = try kind.make()
    var generator = SeededGenerator(seed: 11)
    let runs = (0..<300).map { index in
      Runs.run(
        RunID(random: &generator).text,
        index.isMultiple(of: 3) ? .waitingForInput(state: "Approve") : .finished,
        snapshot: Array("run \(index)".utf8))
    }
    for run in runs { try await store.save(run) }
    let listed = try await store.list()
    #expect(listed == runs.map(\.summary).sorted { $0.id < $1.id })
    #expect(try await store.list(matching: .waitingForInput(at: "Approve")).count == 100)
    for run in runs.prefix(20) { #expect(try await store.load(run.id) == run) }
    _ = directory
  }

  @Test(arguments: StoreKind.allCases)
  func concurrentSavesFromManyTasksAllLand(_ kind: StoreKind) async throws {
    let (store, directory) = try kind.make()
    let shared = (0..<32).map {
      Runs.run("shared", snapshot: Array(repeating: UInt8($0), count: 3000))
    }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for task in 0..<32 {
        group.addTask {
          for round in 0..<4 {
            try await store.save(
              Runs.run("task-\(task)", snapshot: Array("\(task) \(round)".utf8)))
          }
          try await store.save(shared[task])
        }
      }
      try await group.waitForAll()
    }
    let listed = try await store.list()
    #expect(listed.count == 33)
    for task in 0..<32 {
      let run = try await store.load(Runs.id("task-\(task)"))
      #expect(run?.snapshot == Array("\(task) 3".utf8))
    }
    let winner = try #require(try await store.load(Runs.id("shared")))
    #expect(shared.contains(winner), "the shared run is one of the saves, whole")
    _ = directory
  }
}
