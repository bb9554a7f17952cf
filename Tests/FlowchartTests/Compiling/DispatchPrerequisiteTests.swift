import Flowchart
import Testing

/// What the branches of a test dispatch did, in the order they did it.
fileprivate actor Journal {
  private(set) var entries: [String] = []

  func note(_ entry: String) { entries.append(entry) }
}

/// What the branches of a synchronous test dispatch did, in order.
private final class SyncJournal: Sendable {
  private let storage = Lock<[String]>([])

  func note(_ entry: String) { storage.withLock { $0.append(entry) } }

  var entries: [String] { storage.withLock { $0 } }
}

/// Task.framework's prerequisites and a concurrency limit: a branch starts once the
/// branches it waits for have ended, from their merged contexts; at most `maxConcurrency`
/// branches run at once.
@Suite(.timeLimit(.minutes(5)))
struct DispatchPrerequisiteTests {
  struct Order: Sendable, Equatable {
    var done: Set<String> = []
    var waitedFor: [String: Set<String>] = [:]
  }

  struct MissingPrerequisite: Error {}

  /// One branch's state: checks that what it waits for is done in its starting context,
  /// then marks itself done.
  fileprivate static func step(
    _ name: String, after prerequisites: Set<String>, journal: Journal? = nil,
    gates: Gates? = nil, number: Int = 0
  ) -> Action<Order> {
    Action(name, isFinal: true) { order in
      await journal?.note("start \(name)")
      guard prerequisites.isSubset(of: order.done) else { throw MissingPrerequisite() }
      await gates?.park(number)
      order.waitedFor[name] = order.done
      order.done.insert(name)
      await journal?.note("end \(name)")
    }
  }

  /// Task.framework's photo order: each branch, and what it waits for.
  static let photoBranches: [(String, [String])] = [
    ("Submit order", ["Upload photo 1", "Upload photo 2", "Metadata available"]),
    ("Upload photo 1", ["Create project", "Photo 1 available"]),
    ("Upload photo 2", ["Create project", "Photo 2 available"]),
    ("Create project", []),
    ("Photo 1 available", []),
    ("Photo 2 available", []),
    ("Metadata available", []),
  ]

  /// Task.framework's photo order, declared with the order last-first so that the run
  /// order has to come from the prerequisites.
  fileprivate static func photoOrder(
    journal: Journal? = nil, gates: Gates? = nil, maxConcurrency: Int? = nil
  ) throws -> Flowchart<Order> {
    let branches = photoBranches
    return try Flowchart<Order> {
      Dispatch("Order", maxConcurrency: maxConcurrency) { order, branch in
        order.done.formUnion(branch.done)
        order.waitedFor.merge(branch.waitedFor) { first, _ in first }
      } branches: {
        for (number, (name, prerequisites)) in branches.enumerated() {
          Branch(name, after: prerequisites) {
            Self.step(
              name, after: Set(prerequisites), journal: journal, gates: gates, number: number)
          }
        }
      }
      Action("Shipped", isFinal: true)
    }
  }

  // MARK: - Task.framework's example

  /// The order a run with one branch at a time takes: each branch as soon as what it waits
  /// for has run, the earliest declared first.
  static let oneAtATime = [
    "Create project", "Photo 1 available", "Upload photo 1", "Photo 2 available",
    "Upload photo 2", "Metadata available", "Submit order",
  ]

  @Test func aSynchronousRunTakesBranchesAsSoonAsTheirPrerequisitesHaveRun() throws {
    let journal = SyncJournal()
    let branches = Self.photoBranches
    let chart = try Flowchart<Order> {
      Dispatch("Order") { order, branch in
        order.done.formUnion(branch.done)
      } branches: {
        for (name, prerequisites) in branches {
          Branch(name, after: prerequisites) {
            Action(name, isFinal: true) { order in
              journal.note(name)
              guard Set(prerequisites).isSubset(of: order.done) else {
                throw MissingPrerequisite()
              }
              order.done.insert(name)
            }
          }
        }
      }
      Action("Shipped", isFinal: true)
    }
    let result = try chart.runSynchronously(with: Order())
    #expect(result.context.done.count == 7)
    #expect(journal.entries == Self.oneAtATime)
    // The path lists the branches' states in declaration order, as the join takes them.
    #expect(result.pathNames == ["Order"] + Self.photoBranches.map(\.0) + ["Shipped"])
  }

  @Test func oneBranchAtATimeRunsInTheSameOrderAsASynchronousRun() async throws {
    let journal = Journal()
    let chart = try Self.photoOrder(journal: journal, maxConcurrency: 1)
    let result = try await chart.run(with: Order())
    #expect(result.context.done.count == 7)
    let starts = await journal.entries.filter { $0.hasPrefix("start ") }
    #expect(
      starts == [
        "start Create project", "start Photo 1 available", "start Upload photo 1",
        "start Photo 2 available", "start Upload photo 2", "start Metadata available",
        "start Submit order",
      ])
    #expect(
      result.context.waitedFor["Submit order"]
        == [
          "Create project", "Photo 1 available", "Upload photo 1", "Photo 2 available",
          "Upload photo 2", "Metadata available",
        ])
    #expect(result.context.waitedFor["Create project"] == [])
  }

  @Test(arguments: 0..<12)
  func everyFinishOrderRespectsThePrerequisites(seed: UInt64) async throws {
    let journal = Journal()
    let gates = Gates()
    let chart = try Self.photoOrder(journal: journal, gates: gates)
    let run = Task { try await chart.run(with: Order()) }
    var random = SeededGenerator(seed: seed)
    // Open one parked branch at a time, in a random order among those parked: whatever
    // the order, each branch starts only after its prerequisites end.
    var opened = 0
    while opened < 7 {
      let parked = await gates.parked(count: 1)
      await gates.open(parked.randomElement(using: &random)!)
      opened += 1
    }
    let result = try await run.value
    #expect(result.context.done.count == 7)
    let entries = await journal.entries
    let prerequisites: [String: [String]] = [
      "Submit order": ["Upload photo 1", "Upload photo 2", "Metadata available"],
      "Upload photo 1": ["Create project", "Photo 1 available"],
      "Upload photo 2": ["Create project", "Photo 2 available"],
    ]
    for (branch, required) in prerequisites {
      let start = try #require(entries.firstIndex(of: "start \(branch)"))
      for prerequisite in required {
        let end = try #require(entries.firstIndex(of: "end \(prerequisite)"))
        #expect(end < start, "\(branch) started before \(prerequisite) ended: \(entries)")
      }
    }
    // The join is deterministic: the same context whatever the order.
    let reference = try await Self.photoOrder().run(with: Order())
    #expect(result.context == reference.context)
  }

  @Test func aDiamondRunsItsLastBranchOnceAfterBoth() async throws {
    let runs = Lock(0)
    let chart = try Flowchart<Order> {
      Dispatch("Diamond") { order, branch in
        order.done.formUnion(branch.done)
      } branches: {
        Branch("Top") { Self.step("Top", after: []) }
        Branch("Left", after: ["Top"]) { Self.step("Left", after: ["Top"]) }
        Branch("Right", after: ["Top"]) { Self.step("Right", after: ["Top"]) }
        Branch("Bottom", after: ["Left", "Right"]) {
          Action("Bottom", isFinal: true) { order in
            runs.withLock { $0 += 1 }
            guard order.done.isSuperset(of: ["Top", "Left", "Right"]) else {
              throw MissingPrerequisite()
            }
          }
        }
      }
      Action("Done", isFinal: true)
    }
    let result = try await chart.run(with: Order())
    #expect(result.context.done == ["Top", "Left", "Right"])
    #expect(runs.withLock { $0 } == 1)
  }

  @Test func withoutAMergeABranchStartsFromTheContextBeforeTheDispatch() async throws {
    let chart = try Flowchart<Order> {
      Action("Before") { $0.done.insert("Before") }
      Dispatch("Plain") {
        Branch("First") { Self.step("First", after: []) }
        Branch("Second", after: ["First"]) {
          Action("Second", isFinal: true) { order in
            guard order.done == ["Before"] else { throw MissingPrerequisite() }
          }
        }
      }
      Action("Done", isFinal: true)
    }
    #expect(try await chart.run(with: Order()).context.done == ["Before"])
  }

  // MARK: - The concurrency limit

  @Test(arguments: [1, 3])
  func theLimitIsNeverExceeded(limit: Int) async throws {
    let gates = Gates()
    let count = 10
    let chart = try Flowchart<Int> {
      Dispatch("Limited", maxConcurrency: limit) { total, branch in
        total += branch
      } branches: {
        for number in 0..<count {
          Branch {
            Action("Work \(number)", isFinal: true) { value in
              await gates.park(number)
              value = number
            }
          }
        }
      }
      Action("Done", isFinal: true)
    }
    let run = Task { try await chart.run(with: 0) }
    var random = SeededGenerator(seed: UInt64(limit))
    for finished in 0..<count {
      let parked = await gates.parked(count: min(limit, count - finished))
      #expect(parked.count <= limit)
      await gates.open(parked.randomElement(using: &random)!)
    }
    #expect(try await run.value.context == (0..<count).reduce(0, +))
    #expect(await gates.mostParkedAtOnce == limit)
  }

  @Test func branchesStartInDeclarationOrderUnderTheLimit() async throws {
    let journal = Journal()
    let chart = try Flowchart<Int> {
      Dispatch("One at a time", maxConcurrency: 1) {
        for number in 0..<5 {
          Branch {
            Action("Work \(number)", isFinal: true) { _ in await journal.note("\(number)") }
          }
        }
      }
      Action("Done", isFinal: true)
    }
    _ = try await chart.run(with: 0)
    #expect(await journal.entries == ["0", "1", "2", "3", "4"])
  }

  // MARK: - Definition errors

  @Test func aPrerequisiteThatNamesNoBranchIsReportedAtItsBranch() {
    let line = #line + 5
    let error = definitionError {
      try Flowchart<Order> {
        Dispatch("Order") {
          Branch("Create project") { Action("Create", isFinal: true) }
          Branch("Upload", after: ["Create projct"]) { Action("Upload", isFinal: true) }
        }
        Action("Done", isFinal: true)
      }
    }
    expectOnlyProblem(
      error, .unknownPrerequisite, name: "Order", line: line,
      saying: [
        "Branch 2 ('Upload') of Dispatch 'Order' waits for 'Create projct', which names no branch of that dispatch.",
        "(did you mean 'Create project'?)",
      ])
  }

  @Test func aPrerequisiteThatNamesTwoBranchesIsReported() {
    let line = #line + 6
    let error = definitionError {
      try Flowchart<Order> {
        Dispatch("Order") {
          Branch("Twin") { Action("One", isFinal: true) }
          Branch("Twin") { Action("Two", isFinal: true) }
          Branch("Last", after: ["Twin"]) { Action("Last", isFinal: true) }
        }
        Action("Done", isFinal: true)
      }
    }
    expectOnlyProblem(
      error, .unknownPrerequisite, name: "Order", line: line,
      saying: ["which 2 of its branches are named"])
  }

  @Test func branchesThatWaitForEachOtherAreReportedOnce() {
    let line = #line + 5
    let error = definitionError {
      try Flowchart<Order> {
        Dispatch("Order") {
          Branch("Free") { Action("Free", isFinal: true) }
          Branch("A", after: ["C", "Free"]) { Action("A", isFinal: true) }
          Branch("B", after: ["A"]) { Action("B", isFinal: true) }
          Branch("C", after: ["B"]) { Action("C", isFinal: true) }
        }
        Action("Done", isFinal: true)
      }
    }
    let problem = expectOnlyProblem(error, .prerequisiteCycle, name: "Order", line: line)
    #expect(
      problem?.message
        == "Branches of Dispatch 'Order' wait for each other in a cycle, 'A' → 'C' → 'B' → 'A', so none of them could start. Remove one of the prerequisites."
    )
  }

  @Test func aBranchThatWaitsForItselfIsACycle() {
    let line = #line + 4
    let error = definitionError {
      try Flowchart<Order> {
        Dispatch("Order", isFinal: true) {
          Branch("Self", after: ["Self"]) { Action("Self", isFinal: true) }
        }
      }
    }
    expectOnlyProblem(
      error, .prerequisiteCycle, name: "Order", line: line,
      saying: ["Branch 'Self' of Dispatch 'Order' waits for itself"])
  }

  @Test func aLimitBelowOneIsReported() {
    let line = #line + 3
    let error = definitionError {
      try Flowchart<Order> {
        Dispatch("Order", isFinal: true, maxConcurrency: 0) {
          Branch { Action("Work", isFinal: true) }
        }
      }
    }
    expectOnlyProblem(
      error, .invalidDispatchOption, name: "Order", line: line,
      saying: ["maxConcurrency of 0"])
  }

  // MARK: - Printing

  @Test func theTreeShowsWhatEachBranchWaitsFor() throws {
    expectTree(
      try Self.photoOrder(),
      """
      Order (D)
      |- Submit order (after Upload photo 1, Upload photo 2, Metadata available): Submit order (A) !
      |- Upload photo 1 (after Create project, Photo 1 available): Upload photo 1 (A) !
      |- Upload photo 2 (after Create project, Photo 2 available): Upload photo 2 (A) !
      |- Create project: Create project (A) !
      |- Photo 1 available: Photo 1 available (A) !
      |- Photo 2 available: Photo 2 available (A) !
      |- Metadata available: Metadata available (A) !
      Shipped (A) !
      """)
  }
}
