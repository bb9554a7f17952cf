import FlowchartTesting
import Foundation
import Testing

@testable import Flowchart

// Corrupted and hostile snapshots: each either decodes and resumes, or fails with an error
// that says what is wrong; none traps.

/// The fixture `name` with `change` applied to its JSON object.
private func edited(_ name: String, _ change: (inout [String: Any]) -> Void) throws -> Data {
  var object = try #require(
    try JSONSerialization.jsonObject(with: snapshotFixture(name)) as? [String: Any])
  change(&object)
  return try JSONSerialization.data(withJSONObject: object)
}

private func flow(_ object: inout [String: Any], _ change: (inout [String: Any]) -> Void) {
  var flows = object["flows"] as! [[String: Any]]
  change(&flows[0])
  object["flows"] = flows
}

/// The description of the error decoding `data` (as a snapshot of a `Context` run) throws.
private func decodingError<Context: Codable & Sendable>(
  _ data: Data, as context: Context.Type = Ledger.self
) -> String? {
  do {
    _ = try JSONDecoder().decode(RunSnapshot<Context>.self, from: data)
    return nil
  } catch let DecodingError.dataCorrupted(context) {
    return context.debugDescription
  } catch {
    return "\(error)"
  }
}

/// Applies one random mutation to a JSON value: removes a key, makes a number negative or
/// huge, shortens an array, changes a string.
private func mutate(_ value: Any, using generator: inout SeededGenerator) -> Any {
  switch value {
  case var object as [String: Any]:
    guard let key = object.keys.sorted().randomElement(using: &generator) else { return object }
    if Int.random(in: 0..<4, using: &generator) == 0 {
      object[key] = nil
    } else {
      object[key] = mutate(object[key]!, using: &generator)
    }
    return object
  case var array as [Any]:
    guard !array.isEmpty else { return [0] }
    if Bool.random(using: &generator) {
      array.removeLast(Int.random(in: 1...array.count, using: &generator))
    } else {
      let index = Int.random(in: 0..<array.count, using: &generator)
      array[index] = mutate(array[index], using: &generator)
    }
    return array
  case let number as NSNumber:
    let choices: [Any] = [
      0 &- number.int64Value, Int64.max, Int64.min, -1, 0, 1e300, "x", NSNull(),
      number.int64Value &+ 1,
    ]
    return choices.randomElement(using: &generator)!
  case is String:
    let choices: [Any] = ["", "Big?", "Shrug", "Nowhere", "finished", "entering", 3, NSNull()]
    return choices.randomElement(using: &generator)!
  default:
    return "changed"
  }
}

@Suite(.timeLimit(.minutes(5)))
struct HostileSnapshotTests {
  @Test func anUnknownFormatVersionIsRefused() throws {
    let data = try edited("waiting-for-input") { $0["formatVersion"] = 4 }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: it is in format version 4, and this version of Flowchart reads formats 1, 2 and 3 only."
    )
  }

  @Test func aNegativeStepCountIsRefused() throws {
    let data = try edited("waiting-for-input") { flow(&$0) { $0["stepCount"] = -3 } }
    #expect(
      decodingError(data) == "Not a usable run snapshot: flow 0's step count is negative (-3).")
  }

  @Test func aPathThatDoesNotMatchItsCountIsRefused() throws {
    let data = try edited("waiting-for-input") { flow(&$0) { $0["path"] = ["Charge"] } }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: flow 0 entered 2 states, so its path keeps 2, but it lists 1."
    )
  }

  @Test func aSecondFlowIsRefused() throws {
    let data = try edited("waiting-for-input") { object in
      let flows = object["flows"] as! [[String: Any]]
      object["flows"] = flows + flows
    }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: format 1 holds exactly one flow, the top-level flow (number 0), and this one holds 2."
    )
  }

  @Test func aPositionTheShapesDoNotDescribeIsRefused() throws {
    let data = try edited("waiting-for-input") { $0["shapes"] = [String: Any]() }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: flow 0 stands at 'Answer', which its table of shapes does not describe."
    )
  }

  @Test func aStatusThatDisagreesWithThePositionIsRefused() throws {
    let data = try edited("waiting-for-input") { $0["status"] = ["status": "finished"] }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: its status is finished, but its top-level flow waits for input at 'Answer'."
    )
  }

  /// The stored format-2 snapshot with `change` applied to its flow `index`.
  private func editedBranch(_ index: Int, _ change: @escaping (inout [String: Any]) -> Void)
    throws -> Data
  {
    try edited("dispatch-waiting") { object in
      var flows = object["flows"] as! [[String: Any]]
      change(&flows[index])
      object["flows"] = flows
    }
  }

  @Test func aBranchOfNoEarlierFlowIsRefused() throws {
    let data = try editedBranch(1) { $0["parent"] = 5 }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: flow 1 is a branch of flow 5, which no earlier flow is.")
  }

  @Test func aBranchTheDispatchDoesNotHaveIsRefused() throws {
    let data = try editedBranch(1) { $0["branch"] = 7 }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: flow 1 is branch 7 of dispatch 'Split', which has 2 branches (numbered from 0)."
    )
  }

  @Test func aBranchHeldTwiceIsRefused() throws {
    let data = try editedBranch(2) { $0["branch"] = 0 }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: two flows are branch 0 of dispatch 'Split' of flow 0.")
  }

  @Test func aBranchOfAFlowThatStandsInAnotherDispatchIsRefused() throws {
    let data = try editedBranch(2) { $0["dispatch"] = "Prepare" }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: flow 2 is a branch of dispatch 'Prepare' of flow 0, but that flow stands in dispatch 'Split'."
    )
  }

  @Test func aBranchWithoutItsParentIsRefused() throws {
    let data = try editedBranch(1) { $0["parent"] = nil }
    #expect(decodingError(data)?.contains("parent") == true)
  }

  @Test func severalFlowsInFormatOneAreRefused() throws {
    let data = try edited("dispatch-waiting") { $0["formatVersion"] = 1 }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: flow 1 is not the first, so it is a dispatch branch, but it names no parent flow, dispatch and branch."
        || decodingError(data)
          == "Not a usable run snapshot: format 1 holds exactly one flow, the top-level flow (number 0), and this one holds 3."
    )
  }

  @Test func aDispatchWhoseBranchesAllFinishedIsRefused() throws {
    let data = try editedBranch(1) { branch in
      branch["position"] = "finished"
      branch["decision"] = ["value": "done"]
    }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: every branch of dispatch 'Split' of flow 0 finished, so the dispatch would have joined."
    )
  }

  /// 2,500 mutated format-2 snapshots (`FLOWCHART_SNAPSHOT_FUZZ` sets another count): each
  /// decodes and resumes to an end, or throws.
  @Test func mutatedDispatchSnapshotsDecodeAndResumeOrThrow() async throws {
    let count =
      ProcessInfo.processInfo.environment["FLOWCHART_SNAPSHOT_FUZZ"].flatMap { Int($0) } ?? 2_500
    let chart = try hostileDispatchChart()
    let (decoded, resumed) = try await fuzz(
      ["dispatch-waiting"], as: Ledger.self, count: count, seed: 23
    ) { _, snapshot in
      guard let handle = try? chart.start(resuming: snapshot) else { return false }
      _ = try? handle.send(5, to: "Answer")
      _ = try? await handle.result
      return true
    }
    #expect(decoded > 0)
    #expect(resumed > 0)
  }

  /// Mutated snapshots of a run standing inside a subflow (`FLOWCHART_SNAPSHOT_FUZZ` sets
  /// another count than 2,500): each decodes and resumes to an end, or throws. Resumed on a
  /// clock at the end of time, so that any deadline they hold has passed.
  @Test func mutatedSubflowSnapshotsDecodeAndResumeOrThrow() async throws {
    let count =
      ProcessInfo.processInfo.environment["FLOWCHART_SNAPSHOT_FUZZ"].flatMap { Int($0) } ?? 2_500
    let chart = try storedSubflowChart()
    let (decoded, resumed) = try await fuzz(
      ["inside-subflow-at-delay"], as: Ledger.self, count: count, seed: 24
    ) { _, snapshot in
      let clock = TestClock(wallClockStart: WallClockTime(nanosecondsSince1970: .max))
      guard let handle = try? chart.start(resuming: snapshot, clock: clock) else { return false }
      _ = try? await handle.result
      return true
    }
    #expect(decoded > 0)
    #expect(resumed > 0)
  }

  @Test func aSubflowObjectOnAFlowThatDoesNotStandInASubflowIsRefused() throws {
    let data = try edited("inside-subflow-at-delay") { object in
      flow(&object) { $0["position"] = "entering" }
    }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: flow 0 holds a subflow's inner run, but does not stand in a subflow."
    )
  }

  @Test func anInnerRunWaitingForATimeWithoutADeadlineIsRefused() throws {
    let data = try edited("inside-subflow-at-delay") { object in
      flow(&object) { flow in
        var inner = flow["subflow"] as! [String: Any]
        inner["deadline"] = nil
        flow["subflow"] = inner
      }
    }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: the inner run of subflow 'Pay' in flow 0 waits for a time at 'Cool off', so it entered it last and has a deadline, and no attempt under way."
    )
  }

  /// 10,000 mutated snapshots (`FLOWCHART_SNAPSHOT_FUZZ` sets another count): each decodes
  /// and resumes to an end, or throws; a trap would end the test process.
  @Test func mutatedSnapshotsDecodeAndResumeOrThrow() async throws {
    let count =
      ProcessInfo.processInfo.environment["FLOWCHART_SNAPSHOT_FUZZ"].flatMap { Int($0) } ?? 10_000
    let chart = try hostileWaitingChart()
    let (decoded, resumed) = try await fuzz(
      ["held-at-start", "value-waiting", "waiting-for-input", "failed", "finished"],
      as: Ledger.self, count: count, seed: 22
    ) { _, snapshot in
      guard let handle = try? chart.start(resuming: snapshot) else { return false }
      _ = try? handle.send(5, to: "Answer")
      _ = try? await handle.result
      return true
    }
    // Some mutations leave a usable snapshot (a note changed, say); most do not.
    #expect(decoded > 0)
    #expect(resumed > 0)
  }
}

@Suite(.timeLimit(.minutes(5)))
struct HostileMapSnapshotTests {
  /// Mutated snapshots of a run standing inside a map (`FLOWCHART_SNAPSHOT_FUZZ` sets another
  /// count than 2,500): each decodes and resumes to an end, or throws. Resumed on a clock at
  /// the end of time, so that any deadline they hold has passed.
  @Test func mutatedMapSnapshotsDecodeAndResumeOrThrow() async throws {
    let count =
      ProcessInfo.processInfo.environment["FLOWCHART_SNAPSHOT_FUZZ"].flatMap { Int($0) } ?? 2_500
    let chart = try storedMapChart()
    let (decoded, resumed) = try await fuzz(
      ["inside-map-at-delay"], as: Basket.self, count: count, seed: 25
    ) { _, snapshot in
      let clock = TestClock(wallClockStart: WallClockTime(nanosecondsSince1970: .max))
      guard let handle = try? chart.start(resuming: snapshot, clock: clock) else { return false }
      _ = try? await handle.result
      return true
    }
    #expect(decoded > 0)
    #expect(resumed > 0)
  }

  private func editedMap(_ change: @escaping (inout [String: Any]) -> Void) throws -> Data {
    try edited("inside-map-at-delay") { object in
      flow(&object) { flow in
        var map = flow["map"] as! [String: Any]
        change(&map)
        flow["map"] = map
      }
    }
  }

  @Test func anElementOutOfRangeIsRefused() throws {
    let data = try editedMap { map in
      var done = map["done"] as! [[String: Any]]
      done[0]["index"] = 3
      map["done"] = done
    }
    #expect(
      decodingError(data, as: Basket.self)
        == "Not a usable run snapshot: the runs of map 'Charge each' in flow 0 list element 3, outside the map's 3 elements (0 to 2)."
    )
  }

  @Test func anElementListedTwiceIsRefused() throws {
    let data = try editedMap { map in
      var done = map["done"] as! [[String: Any]]
      done[0]["index"] = 1
      map["done"] = done
    }
    #expect(
      decodingError(data, as: Basket.self)
        == "Not a usable run snapshot: the runs of map 'Charge each' in flow 0 list element 1 twice; an element is done, running or failed, once."
    )
  }

  @Test func aMapObjectOnAFlowThatDoesNotStandInAMapIsRefused() throws {
    let data = try edited("inside-map-at-delay") { object in
      flow(&object) { $0["position"] = "entering" }
    }
    #expect(
      decodingError(data, as: Basket.self)
        == "Not a usable run snapshot: flow 0 holds a map's runs, but does not stand in a map.")
  }

  // MARK: - A map's tolerated failures

  /// `format-3-inside-map-with-failure.json` with `change` applied to its map's failure.
  private func editedFailure(_ change: @escaping (inout [String: Any]) -> Void) throws -> Data {
    try edited("format-3-inside-map-with-failure") { object in
      var map = object["map"] as! [String: Any]
      var failed = map["failed"] as! [[String: Any]]
      change(&failed[0])
      map["failed"] = failed
      object["map"] = map
    }
  }

  @Test func aFailedElementOutOfRangeIsRefused() throws {
    let data = try editedFailure { $0["index"] = 3 }
    #expect(
      decodingError(data, as: Basket.self)
        == "Not a usable run snapshot: the runs of map 'Charge each' in flow 0 list element 3, outside the map's 3 elements (0 to 2)."
    )
  }

  @Test func aFailedElementThatAlsoRunsIsRefused() throws {
    let data = try editedFailure { $0["index"] = 1 }
    #expect(
      decodingError(data, as: Basket.self)
        == "Not a usable run snapshot: the runs of map 'Charge each' in flow 0 list element 1 twice; an element is done, running or failed, once."
    )
  }

  @Test(arguments: ["exploded", "parked", "Thrown Error"])
  func aFailureOfAnUnknownKindIsRefused(_ kind: String) throws {
    let data = try editedFailure { $0["kind"] = kind }
    #expect(
      decodingError(data, as: Basket.self)
        == "Not a usable run snapshot: the runs of map 'Charge each' in flow 0 list element 0 as failed with the kind '\(kind)', which no run error has (a kind is written as its description, such as 'thrown error')."
    )
  }

  @Test func aFailureWhosePathHasMoreNamesThanStatesIsRefused() throws {
    let data = try editedFailure { $0["pathNames"] = ["Charge", "Cool off"] }
    #expect(
      decodingError(data, as: Basket.self)
        == "Not a usable run snapshot: the runs of map 'Charge each' in flow 0 list element 0 as failed with a path of 1 states and 2 names; a failure's path has as many names as states, at most \(RunResult<Int>.pathCapacity)."
    )
  }

  @Test func aFailureAtAStateTheElementChartLacksIsRefusedOnResume() throws {
    let data = try editedFailure { $0["at"] = "Refund" }
    let snapshot = try JSONDecoder().decode(RunSnapshot<Basket>.self, from: data)
    let error = try #require(throws: ResumeError.self) {
      _ = try tolerantMapChart().start(resuming: snapshot, clock: TestClock())
    }
    #expect(error.misfits.map(\.position) == ["Charge each > Refund"])
    #expect(
      error.misfits.map(\.reason) == [
        "Element 0 of map 'Charge each' failed at or after 'Refund', which no longer exists in the element chart: resume on a chart whose map's chart still has it."
      ])
  }

  /// Mutated snapshots of a run standing in a map that tolerated a failure
  /// (`FLOWCHART_SNAPSHOT_FUZZ` sets another count than 2,500): each decodes and resumes to
  /// an end, or throws.
  @Test func mutatedSnapshotsWithAToleratedFailureDecodeAndResumeOrThrow() async throws {
    let count =
      ProcessInfo.processInfo.environment["FLOWCHART_SNAPSHOT_FUZZ"].flatMap { Int($0) } ?? 2_500
    let chart = try tolerantMapChart()
    let (decoded, resumed) = try await fuzz(
      ["format-3-inside-map-with-failure"], as: Basket.self, count: count, seed: 29
    ) { _, snapshot in
      let clock = TestClock(wallClockStart: WallClockTime(nanosecondsSince1970: .max))
      guard let handle = try? chart.start(resuming: snapshot, clock: clock) else { return false }
      _ = try? await handle.result
      return true
    }
    #expect(decoded > 0)
    #expect(resumed > 0)
  }

  // MARK: - A subflow's attempt and timeout, an inner run in a map

  private func editedTimedSubflow(_ change: @escaping (inout [String: Any]) -> Void) throws
    -> Data
  {
    try edited("inside-timed-subflow-at-delay") { object in
      flow(&object) { flow in
        var inner = flow["subflow"] as! [String: Any]
        change(&inner)
        flow["subflow"] = inner
      }
    }
  }

  @Test func aSubflowStateAttemptBelowOneIsRefused() throws {
    for attempt in [0, -1, Int.min] {
      let data = try editedTimedSubflow { $0["stateAttempt"] = attempt }
      #expect(
        decodingError(data)
          == "Not a usable run snapshot: the inner run of subflow 'Pay' in flow 0 is run by attempt \(attempt) of its state; attempts count from 1."
      )
    }
    let huge = try editedTimedSubflow { $0["stateAttempt"] = Int.max }
    #expect(decodingError(huge)?.contains("attempts count from 1") == true)
  }

  @Test func aSubflowTimeoutThatIsNoTimeIsRefused() throws {
    for timeout: Any in ["soon", 12, ""] {
      let data = try editedTimedSubflow { $0["timeout"] = timeout }
      #expect(decodingError(data) != nil, "timeout \(timeout)")
    }
  }

  @Test func aSubflowAttemptTheStateDoesNotHaveIsRefusedOnResume() throws {
    let data = try editedTimedSubflow { $0["stateAttempt"] = 3 }
    let snapshot = try JSONDecoder().decode(RunSnapshot<Ledger>.self, from: data)
    let error = try #require(throws: ResumeError.self) {
      _ = try storedTimedSubflowChart().start(resuming: snapshot, clock: TestClock())
    }
    #expect(
      error.misfits.map(\.reason) == [
        "'Pay', where the run stands in the subflow, is at its attempt 3, and retries 1 time: the snapshot is damaged, or the state's retry was lowered."
      ])
  }

  @Test func anInnerRunInAMapWithoutItsRunsIsRefused() throws {
    let data = try editedTimedSubflow { inner in
      inner["position"] = "inMap"
      inner["at"] = "Cool off"
      inner["deadline"] = nil
    }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: the inner run of subflow 'Pay' in flow 0 stands in 'Cool off', which must be a map it entered last, with no attempt under way and no deadline."
    )
    let stray = try editedTimedSubflow { $0["map"] = ["elements": 0] }
    #expect(
      decodingError(stray)
        == "Not a usable run snapshot: the inner run of subflow 'Pay' in flow 0 holds a map's runs, but does not stand in a map."
    )
  }

  /// Mutated snapshots of a run standing inside a subflow with a timeout and a retry
  /// (`FLOWCHART_SNAPSHOT_FUZZ` sets another count than 2,500): each decodes and resumes
  /// to an end, or throws. Resumed on a clock at the end of time, so that any deadline they
  /// hold has passed.
  @Test func mutatedTimedSubflowSnapshotsDecodeAndResumeOrThrow() async throws {
    let count =
      ProcessInfo.processInfo.environment["FLOWCHART_SNAPSHOT_FUZZ"].flatMap { Int($0) } ?? 2_500
    let chart = try storedTimedSubflowChart()
    let (decoded, resumed) = try await fuzz(
      ["inside-timed-subflow-at-delay"], as: Ledger.self, count: count, seed: 26
    ) { _, snapshot in
      let clock = TestClock(wallClockStart: WallClockTime(nanosecondsSince1970: .max))
      guard let handle = try? chart.start(resuming: snapshot, clock: clock) else { return false }
      _ = try? await handle.result
      return true
    }
    #expect(decoded > 0)
    #expect(resumed > 0)
  }
}

@Suite(.timeLimit(.minutes(5)))
struct HostileInnerDispatchSnapshotTests {
  /// The stored snapshot inside a subflow's dispatch with `change` applied to its inner
  /// run's `subflow` object.
  private func editedInner(_ change: @escaping (inout [String: Any]) -> Void) throws -> Data {
    try edited("inside-subflow-dispatch") { object in
      flow(&object) { flow in
        var inner = flow["subflow"] as! [String: Any]
        change(&inner)
        flow["subflow"] = inner
      }
    }
  }

  /// The stored snapshot with `change` applied to the inner run's branch flow `index`.
  private func editedInnerBranch(
    _ index: Int, _ change: @escaping (inout [String: Any]) -> Void
  ) throws -> Data {
    try editedInner { inner in
      var flows = inner["flows"] as! [[String: Any]]
      change(&flows[index])
      inner["flows"] = flows
    }
  }

  @Test func anInnerBranchTheDispatchDoesNotHaveIsRefused() throws {
    let data = try editedInnerBranch(1) { $0["branch"] = 7 }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: flow 2 of the inner run of subflow 'Pay' in flow 0 is branch 7 of dispatch 'Both', which has 2 branches (numbered from 0)."
    )
  }

  @Test func anInnerBranchHeldTwiceIsRefused() throws {
    let data = try editedInnerBranch(1) { $0["branch"] = 0 }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: two flows are branch 0 of dispatch 'Both' of flow 0 of the inner run."
    )
  }

  @Test func anInnerBranchOfAFlowThatIsNotEarlierIsRefused() throws {
    let data = try editedInnerBranch(0) { $0["parent"] = 5 }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: flow 1 of the inner run of subflow 'Pay' in flow 0 is a branch of flow 5, which no earlier flow is."
    )
  }

  @Test func anInnerBranchWithTheNumberOfAnotherFlowIsRefused() throws {
    let data = try editedInnerBranch(1) { $0["flow"] = 0 }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: flow 0 of the inner run of subflow 'Pay' in flow 0 has the number of another flow (the inner run's own flow is 0, its branches are numbered from 1, each once)."
    )
  }

  @Test func anInnerBranchFinishedAtAStateThatIsNotFinalIsRefused() throws {
    let data = try editedInnerBranch(1) { flow in
      flow["position"] = "finished"
      flow["decision"] = ["value": "done"]
      flow["deadline"] = nil
    }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: flow 2 of the inner run of subflow 'Pay' in flow 0 finished at 'Both/Cool off', which must be a final state it entered last, with no attempt under way and no deadline."
    )
  }

  @Test func anInnerDispatchWhoseBranchesAllFinishedIsRefused() throws {
    let data = try editedInner { inner in
      var flows = inner["flows"] as! [[String: Any]]
      flows[1] = flows[0]
      flows[1]["flow"] = 2
      flows[1]["branch"] = 1
      inner["flows"] = flows
    }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: every branch of dispatch 'Both' of flow 0 of the inner run of subflow 'Pay' in flow 0 finished, so the dispatch would have joined."
    )
  }

  @Test func innerBranchesOfAnInnerRunThatStandsInNoDispatchAreRefused() throws {
    let data = try editedInner { inner in
      inner["position"] = "entering"
      inner["at"] = "Start"
      inner["shapes"] = [
        "Start": ["kind": "action", "final": false, "exits": ["next → Both"]],
        "Both": [
          "kind": "dispatch", "final": false,
          "exits": ["branch 1 → Both/Tally", "branch 2 → Both/Charge", "next → Finish"],
        ],
      ]
    }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: the inner run of subflow 'Pay' in flow 0 holds dispatch branches, but does not stand in a dispatch."
    )
  }

  @Test func anInnerBranchHoldingAMapsRunsOutsideAMapIsRefused() throws {
    let data = try editedInnerBranch(1) { $0["map"] = ["elements": 0] }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: flow 2 of the inner run of subflow 'Pay' in flow 0 holds a map's runs, but does not stand in a map."
    )
  }

  @Test func anInnerBranchInAMapWithoutItsRunsIsRefused() throws {
    let data = try editedInnerBranch(1) { flow in
      flow["position"] = "inMap"
      flow["deadline"] = nil
    }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: flow 2 of the inner run of subflow 'Pay' in flow 0 stands in 'Both/Cool off', which must be a map it entered last, with no attempt under way and no deadline."
    )
  }

  @Test func anInnerBranchHoldingTheSubflowStatesAttemptIsRefused() throws {
    for key in ["stateAttempt", "timeout"] {
      let data = try editedInnerBranch(1) {
        $0[key] = key == "timeout" ? "2026-01-02T00:00:00Z" : 2
      }
      #expect(
        decodingError(data)
          == "Not a usable run snapshot: flow 2 of the inner run of subflow 'Pay' in flow 0 holds the subflow state's attempt or timeout (`stateAttempt`, `timeout`), which belong to the inner run as a whole: write them on its `subflow` object."
      )
    }
  }

  @Test func anInnerBranchCountThatDoesNotMatchTheInnerChartsDispatchIsRefusedOnResume()
    throws
  {
    // The table of shapes (and so the decoder) says the dispatch has three branches, and the
    // snapshot holds the third: the chart's dispatch has two.
    let data = try editedInner { inner in
      var shapes = inner["shapes"] as! [String: Any]
      var both = shapes["Both"] as! [String: Any]
      both["exits"] = (both["exits"] as! [String]) + ["branch 3 → Both/Tally"]
      shapes["Both"] = both
      inner["shapes"] = shapes
      var flows = inner["flows"] as! [[String: Any]]
      flows[1]["branch"] = 2
      inner["flows"] = flows
    }
    let snapshot = try JSONDecoder().decode(RunSnapshot<Ledger>.self, from: data)
    let error = try #require(throws: ResumeError.self) {
      _ = try storedInnerDispatchChart().start(resuming: snapshot, chart: "stored")
    }
    #expect(error.misfits.map(\.position) == ["Pay > Both"])
    #expect(
      error.misfits.map(\.reason) == [
        "Inside subflow 'Pay', where the run stands: Dispatch 'Both' has 2 branches, and the snapshot holds its branch 3: resume on a chart whose dispatch has that branch."
      ])
  }

  /// Mutated snapshots of a run standing in a subflow's dispatch (`FLOWCHART_SNAPSHOT_FUZZ`
  /// sets another count than 2,500): each decodes and resumes to an end, or throws. Resumed
  /// on a clock at the end of time, so that any deadline they hold has passed.
  @Test func mutatedInnerDispatchSnapshotsDecodeAndResumeOrThrow() async throws {
    let count =
      ProcessInfo.processInfo.environment["FLOWCHART_SNAPSHOT_FUZZ"].flatMap { Int($0) } ?? 2_500
    let chart = try storedInnerDispatchChart()
    let (decoded, resumed) = try await fuzz(
      ["inside-subflow-dispatch"], as: Ledger.self, count: count, seed: 26
    ) { _, snapshot in
      let clock = TestClock(wallClockStart: WallClockTime(nanosecondsSince1970: .max))
      guard let handle = try? chart.start(resuming: snapshot, clock: clock) else { return false }
      _ = try? await handle.result
      return true
    }
    #expect(decoded > 0)
    #expect(resumed > 0)
  }
}

/// The chart the stored snapshots of a run waiting for input were taken on, with wrapping
/// arithmetic: a hostile context may hold any number.
private func hostileWaitingChart() throws -> Flowchart<Ledger> {
  try Flowchart<Ledger> {
    Action("Charge") { $0.total &+= 1 }
    Wait("Answer", for: Int.self) { $0.total &+= $1 }
    Condition("Big?") {
      $0.total > 3
    } yes: {
      Action("Celebrate", isFinal: true) { $0.notes.append("big") }
    } no: {
      Action("Shrug", isFinal: true) { $0.notes.append("small") }
    }
  }
}

/// The chart the stored snapshots of a run standing in a dispatch were taken on, with wrapping
/// arithmetic: a hostile context may hold any number.
private func hostileDispatchChart() throws -> Flowchart<Ledger> {
  try Flowchart<Ledger> {
    Action("Prepare") { $0.notes.append("prepared") }
    Dispatch("Split") { context, branch, original in
      context.total = context.total &+ (branch.total &- original.total)
      context.notes += branch.notes.dropFirst(min(original.notes.count, branch.notes.count))
    } branches: {
      Branch {
        Wait("Answer", for: Int.self) { $0.total &+= $1 }
        Action("Record", isFinal: true) { $0.notes.append("answered") }
      }
      Branch {
        Action("Pack", isFinal: true) { $0.notes.append("packed") }
      }
    }
    Action("Ship", isFinal: true) { $0.notes.append("shipped") }
  }
}

/// Mutates and decodes `count` copies of each source (bytes flipped, or JSON values removed or
/// changed), resuming each snapshot that decodes with `resume`; returns how many decoded and
/// how many resumed.
private func fuzz<Context: Codable & Sendable>(
  _ names: [String], as context: Context.Type, count: Int, seed: UInt64,
  resume: (Int, RunSnapshot<Context>) async -> Bool
) async throws -> (decoded: Int, resumed: Int) {
  let sources = try names.map { try JSONSerialization.jsonObject(with: snapshotFixture($0)) }
  let raw = try names.map(snapshotFixture)
  var generator = SeededGenerator(seed: seed)
  var decoded = 0
  var resumed = 0
  for round in 0..<count {
    let source = round % names.count
    let data: Data
    if round % 4 == 0 {
      var bytes = [UInt8](raw[source])
      for _ in 0..<Int.random(in: 1...4, using: &generator) {
        let index = Int.random(in: 0..<bytes.count, using: &generator)
        bytes[index] ^= UInt8.random(in: 1...255, using: &generator)
      }
      data = Data(bytes)
    } else {
      var value = sources[source]
      for _ in 0..<Int.random(in: 1...3, using: &generator) {
        value = mutate(value, using: &generator)
      }
      guard JSONSerialization.isValidJSONObject(value),
        let encoded = try? JSONSerialization.data(withJSONObject: value)
      else { continue }
      data = encoded
    }
    guard let snapshot = try? JSONDecoder().decode(RunSnapshot<Context>.self, from: data) else {
      continue
    }
    decoded += 1
    if await resume(source, snapshot) { resumed += 1 }
  }
  return (decoded, resumed)
}

/// Format 3 (`Fixtures/format-3-*.json`): the run's own fields in arrays and with defaults
/// left out; corrupted and hostile copies decode and resume, or fail with a clear error.
@Suite(.timeLimit(.minutes(5)))
struct HostileFormat3SnapshotTests {
  /// The stored format-3 snapshot `name` with `change` applied to its JSON object.
  private func edited3(_ name: String, _ change: (inout [String: Any]) -> Void) throws -> Data {
    try edited("format-3-\(name)", change)
  }

  @Test func aMissingStatusThePositionDoesNotImplyIsRefused() throws {
    let data = try edited3("waiting-for-input") { $0["position"] = ["entering", "Answer"] }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: it names no status, and its top-level flow enters 'Answer' next, which says none: a snapshot names its status unless its top-level flow waits for input, waits for a time or finished."
    )
  }

  @Test func aStatusThatDisagreesWithThePositionIsRefused() throws {
    let data = try edited3("waiting-for-input") { $0["status"] = ["finished"] }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: its status is finished, but its top-level flow waits for input at 'Answer'."
    )
  }

  @Test func aStatusWithMoreThanItNamesIsRefused() throws {
    let data = try edited3("waiting-for-input") {
      $0["status"] = ["waitingForInput", "Answer", "more"]
    }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: its status waitingForInput holds more than its state.")
  }

  @Test func anUnknownPositionIsRefused() throws {
    let data = try edited3("waiting-for-input") { $0["position"] = ["sleeping", "Answer"] }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: flow 0's position is 'sleeping', not one of \"entering\", \"waitingForInput\", \"waitingUntil\", \"dispatching\", \"inSubflow\", \"inMap\", \"finished\" or \"notEntered\"."
    )
  }

  @Test func aShapeDescribedTwiceIsRefused() throws {
    let data = try edited3("waiting-for-input") { object in
      let shapes = object["shapes"] as! [Any]
      object["shapes"] = shapes + shapes
    }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: its table of shapes describes 'Answer' twice.")
  }

  @Test func aStepCountThatDoesNotMatchThePathIsRefused() throws {
    let data = try edited3("waiting-for-input") { $0["stepCount"] = 5 }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: flow 0 entered 5 states, so its path keeps 5, but it lists 2."
    )
  }

  @Test func aTopLevelFlowThatNamesABranchIsRefused() throws {
    let data = try edited3("waiting-for-input") { $0["branch"] = [0, 0] }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: its top-level flow names a parent flow and a branch (\"branch\"), which only the flows in \"branches\" do."
    )
  }

  /// The stored format-3 dispatch snapshot with `change` applied to its branch `index`
  /// (flow `index + 1`).
  private func editedBranch(_ index: Int, _ change: @escaping (inout [String: Any]) -> Void)
    throws -> Data
  {
    try edited3("dispatch-waiting") { object in
      var branches = object["branches"] as! [[String: Any]]
      change(&branches[index])
      object["branches"] = branches
    }
  }

  @Test func aBranchOfAFlowInNoDispatchIsRefused() throws {
    let data = try editedBranch(1) { $0["branch"] = [1, 1] }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: flow 2 is a branch of flow 1, but that flow waits for input at 'Split/Answer', not in a dispatch."
    )
  }

  @Test func aBranchOfNoEarlierFlowIsRefused() throws {
    let data = try editedBranch(0) { $0["branch"] = [4, 0] }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: flow 1 is a branch of flow 4, which no earlier flow is.")
  }

  @Test func aBranchHeldTwiceIsRefused() throws {
    let data = try editedBranch(1) { $0["branch"] = [0, 0] }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: two flows are branch 0 of dispatch 'Split' of flow 0.")
  }

  @Test func aBranchWithoutItsParentIsRefused() throws {
    let data = try editedBranch(0) { $0["branch"] = nil }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: flow 1 is not the first, so it is a dispatch branch, but it names no parent flow and branch."
    )
  }

  @Test func aMailboxEntryWithMoreThanAStateAndAValueIsRefused() throws {
    let data = try edited3("waiting-for-input") { $0["mailbox"] = [["Answer", 3, 4]] }
    #expect(
      decodingError(data)
        == "Not a usable run snapshot: the value waiting for 'Answer' is [state, value], and it holds more."
    )
  }

  /// 10,000 mutated format-3 snapshots, of a run waiting for input and of one standing in a
  /// dispatch (`FLOWCHART_SNAPSHOT_FUZZ` sets another count): each decodes and resumes to
  /// an end, or throws.
  @Test func mutatedSnapshotsDecodeAndResumeOrThrow() async throws {
    let count =
      ProcessInfo.processInfo.environment["FLOWCHART_SNAPSHOT_FUZZ"].flatMap { Int($0) } ?? 10_000
    let waiting = try hostileWaitingChart()
    let dispatching = try hostileDispatchChart()
    let (decoded, resumed) = try await fuzz(
      ["format-3-waiting-for-input", "format-3-dispatch-waiting"], as: Ledger.self, count: count,
      seed: 26
    ) { source, snapshot in
      guard let handle = try? (source == 0 ? waiting : dispatching).start(resuming: snapshot)
      else { return false }
      _ = try? handle.send(5, to: "Answer")
      _ = try? await handle.result
      return true
    }
    #expect(decoded > 0)
    #expect(resumed > 0)
  }

  /// Mutated format-3 snapshots of a run standing inside a map (`FLOWCHART_SNAPSHOT_FUZZ`
  /// sets another count than 2,500), resumed on a clock at the end of time.
  @Test func mutatedMapSnapshotsDecodeAndResumeOrThrow() async throws {
    let count =
      ProcessInfo.processInfo.environment["FLOWCHART_SNAPSHOT_FUZZ"].flatMap { Int($0) } ?? 2_500
    let chart = try storedMapChart()
    let (decoded, resumed) = try await fuzz(
      ["format-3-inside-map-at-delay"], as: Basket.self, count: count, seed: 27
    ) { _, snapshot in
      let clock = TestClock(wallClockStart: WallClockTime(nanosecondsSince1970: .max))
      guard let handle = try? chart.start(resuming: snapshot, clock: clock) else { return false }
      _ = try? await handle.result
      return true
    }
    #expect(decoded > 0)
    #expect(resumed > 0)
  }
}
