// Decoding a snapshot (formats 1, 2 and 3), checking everything it reads: a known format
// version, the top-level flow first, each branch's parent and index, counts that match, no
// negative counters, every position named in the table of shapes. Damaged or hostile input
// is a `DecodingError` that says what is wrong, never a trap (`HostileSnapshotTests` and the
// fuzz tests feed it mutated snapshots).

extension RunSnapshot: Decodable where Context: Decodable {
  /// Decodes a snapshot, checking what it reads.
  ///
  /// - Throws: A `DecodingError` that says what is wrong: an unknown format version, a
  ///   missing or malformed field, a count that does not match, a negative counter, a
  ///   position that the snapshot's table of shapes does not name.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: SnapshotCodingKey.self)
    func corrupt(_ reason: String) -> DecodingError {
      .dataCorrupted(
        DecodingError.Context(
          codingPath: container.codingPath, debugDescription: "Not a usable run snapshot: \(reason)"
        ))
    }
    let version = try container.decode(Int.self, forKey: .formatVersion)
    guard version >= 1, version <= Self.currentFormatVersion else {
      throw corrupt(
        "it is in format version \(version), and this version of Flowchart reads formats 1, 2 and 3 only."
      )
    }
    if version == 3 {
      self = try Self(format3: container, corrupt: corrupt)
      return
    }
    let id = try container.decode(RunID.self, forKey: .id)
    let chart = try container.decode(String.self, forKey: .chart)
    let fingerprint = try container.decode(String.self, forKey: .fingerprint)
    let status = try container.decode(RunStatus.self, forKey: .status)
    let updated = try container.decode(WallClockTime.self, forKey: .updated)
    let stepLimit = try container.decode(Int.self, forKey: .stepLimit)
    guard stepLimit >= 0 else { throw corrupt("its step limit is negative (\(stepLimit)).") }
    // The table of shapes and the paths read as containers, as they are written (see
    // `encode(to:)`).
    let shapesContainer = try container.nestedContainer(keyedBy: ShapeKey.self, forKey: .shapes)
    var shapes: [String: StateShape] = [:]
    for key in shapesContainer.allKeys {
      let shapeContainer = try shapesContainer.nestedContainer(
        keyedBy: StateShape.CodingKeys.self, forKey: key)
      var exitsContainer = try shapeContainer.nestedUnkeyedContainer(forKey: .exits)
      var exits: [String] = []
      while !exitsContainer.isAtEnd { exits.append(try exitsContainer.decode(String.self)) }
      shapes[key.stringValue] = StateShape(
        kind: try shapeContainer.decode(String.self, forKey: .kind),
        isFinal: try shapeContainer.decode(Bool.self, forKey: .isFinal), exits: exits)
    }
    var flowsContainer = try container.nestedUnkeyedContainer(forKey: .flows)
    var flows: [FlowSnapshot<Context>] = []
    while !flowsContainer.isAtEnd {
      let flowContainer = try flowsContainer.nestedContainer(keyedBy: SnapshotCodingKey.self)
      let number = try flowContainer.decode(Int32.self, forKey: .flow)
      let positionKind =
        version >= 2 ? (try? flowContainer.decode(String.self, forKey: .position)) : nil
      let inSubflow = positionKind == "inSubflow"
      let inMap = positionKind == "inMap"
      let position =
        inSubflow || inMap
        ? SnapshotPosition.entering(try flowContainer.decode(String.self, forKey: .at))
        : try SnapshotPosition(from: flowContainer)
      let context = try flowContainer.decode(Context.self, forKey: .context)
      var pathContainer = try flowContainer.nestedUnkeyedContainer(forKey: .path)
      var path: [String] = []
      while !pathContainer.isAtEnd { path.append(try pathContainer.decode(String.self)) }
      let stepCount = try flowContainer.decode(Int.self, forKey: .stepCount)
      let attempt = try flowContainer.decode(Int.self, forKey: .attempt)
      let deadline = try flowContainer.decodeIfPresent(WallClockTime.self, forKey: .deadline)
      var branch: FlowSnapshot<Context>.Branch? = nil
      if version >= 2,
        flowContainer.contains(.parent) || flowContainer.contains(.dispatch)
          || flowContainer.contains(.branch)
      {
        branch = FlowSnapshot<Context>.Branch(
          parent: try flowContainer.decode(Int32.self, forKey: .parent),
          dispatch: try flowContainer.decode(String.self, forKey: .dispatch),
          index: try flowContainer.decode(Int.self, forKey: .branch))
      }
      flows.append(
        try Self.checkedFlow(
          FlowSnapshot(
            flow: number, position: position, context: context, path: path,
            stepCount: stepCount, attempt: attempt, deadline: deadline, branch: branch),
          inSubflow: inSubflow, inMap: inMap, in: flowContainer, version: version,
          after: flows, stepLimit: stepLimit, shapes: shapes, corrupt: corrupt))
    }
    try Self.check(flows, status: status, version: version, shapes: shapes, corrupt: corrupt)
    self.init(
      id: id, chart: chart, fingerprint: fingerprint, status: status, updated: updated,
      stepLimit: stepLimit, flows: flows,
      mailbox: try Self.decodeMailbox(container, shapes: shapes, corrupt: corrupt),
      shapes: shapes, formatVersion: version)
  }

  /// Checks the counters and the position of `flow`, read from `flowContainer`, and reads
  /// the inner run of the subflow (`inSubflow`) or the runs of the map (`inMap`) it stands
  /// in; `flows` are the flows read before it.
  static func checkedFlow(
    _ flow: FlowSnapshot<Context>, inSubflow: Bool, inMap: Bool,
    in flowContainer: KeyedDecodingContainer<SnapshotCodingKey>, version: Int,
    after flows: [FlowSnapshot<Context>], stepLimit: Int, shapes: [String: StateShape],
    corrupt: (String) -> DecodingError
  ) throws -> FlowSnapshot<Context> {
    var flow = flow
    let number = flow.flow
    let (position, path, stepCount, attempt) = (
      flow.position, flow.path, flow.stepCount, flow.attempt
    )
    guard stepCount >= 0 else {
      throw corrupt("flow \(number)'s step count is negative (\(stepCount)).")
    }
    guard attempt >= 1 else {
      throw corrupt("flow \(number)'s attempt is \(attempt); attempts count from 1.")
    }
    switch position {
    case .waitingUntil(let key) where flow.deadline == nil:
      throw corrupt(
        "flow \(number) waits for a time at \(DisplayText.quoted(name: key)), but has no deadline."
      )
    case .entering(let key) where attempt > 1 && flow.deadline == nil:
      throw corrupt(
        "flow \(number) is between two attempts of \(DisplayText.quoted(name: key)), but has no deadline for the next one."
      )
    case .entering(let key) where attempt > 1 && path.last != key:
      throw corrupt(
        "flow \(number) is between two attempts of \(DisplayText.quoted(name: key)), but its path does not end there."
      )
    case .entering where attempt > 1, .waitingUntil: break
    case .entering, .waitingForInput, .dispatching, .finished, .notEntered:
      guard attempt == 1, flow.deadline == nil else {
        throw corrupt(
          "flow \(number) \(position.description), so it has no attempt under way and no deadline."
        )
      }
    }
    guard path.count == min(stepCount, RunResult<Context>.pathCapacity) else {
      throw corrupt(
        "flow \(number) entered \(stepCount) states, so its path keeps \(min(stepCount, RunResult<Context>.pathCapacity)), but it lists \(path.count)."
      )
    }
    guard stepCount <= stepLimit else {
      throw corrupt(
        "flow \(number) entered \(stepCount) states, more than the run's step limit of \(stepLimit)."
      )
    }
    if let key = position.key, shapes[key] == nil {
      throw corrupt(
        "flow \(number) stands at \(DisplayText.quoted(name: key)), which its table of shapes does not describe."
      )
    }
    if inSubflow, let key = position.key {
      guard attempt == 1, shapes[key]?.kind == "subflow", path.last == key else {
        throw corrupt(
          "flow \(number) stands in \(DisplayText.quoted(name: key)), which must be a subflow it entered last, with no attempt under way."
        )
      }
      flow.nested = try NestedSnapshot.decode(
        from: try flowContainer.nestedContainer(keyedBy: SnapshotCodingKey.self, forKey: .subflow),
        flow: number, subflow: key, depth: 1, corrupt: corrupt)
    } else if flowContainer.contains(.subflow) {
      throw corrupt("flow \(number) holds a subflow's inner run, but does not stand in a subflow.")
    }
    if inMap, let key = position.key {
      guard attempt == 1, shapes[key]?.kind == "map", path.last == key else {
        throw corrupt(
          "flow \(number) stands in \(DisplayText.quoted(name: key)), which must be a map it entered last, with no attempt under way."
        )
      }
      flow.map = try MapSnapshot.decode(
        from: try flowContainer.nestedContainer(keyedBy: SnapshotCodingKey.self, forKey: .map),
        flow: number, map: key, corrupt: corrupt)
    } else if flowContainer.contains(.map) {
      throw corrupt("flow \(number) holds a map's runs, but does not stand in a map.")
    }
    if let branch = flow.branch {
      try Self.check(
        branch, of: number, at: position, after: flows, shapes: shapes, corrupt: corrupt)
    } else if version >= 2, !flows.isEmpty {
      throw corrupt(
        "flow \(number) is not the first, so it is a dispatch branch, but it names no parent flow, dispatch and branch."
      )
    }
    return flow
  }

  /// Checks the flows of a snapshot in format `version` against its status: the top-level
  /// flow first; one flow in format 1; in format 2 (and in format 3 for a run that stands
  /// in a dispatch, a subflow or a map), ``checkFlows(_:status:shapes:corrupt:)``; else that
  /// the status agrees with where the one flow stands.
  static func check(
    _ flows: [FlowSnapshot<Context>], status: RunStatus, version: Int,
    shapes: [String: StateShape], corrupt: (String) -> DecodingError
  ) throws {
    guard let top = flows.first, top.flow == 0, top.branch == nil else {
      throw corrupt(
        "its first flow must be the top-level flow (number 0, no parent), and \(flows.isEmpty ? "it holds no flow" : "the first is numbered \(flows[0].flow)")."
      )
    }
    if version == 1, flows.count != 1 {
      throw corrupt(
        "format 1 holds exactly one flow, the top-level flow (number 0), and this one holds \(flows.count)."
      )
    }
    if version == 2
      || (version >= 3
        && (flows.count > 1 || top.position.isDispatching || top.nested != nil || top.map != nil))
    {
      try Self.checkFlows(flows, status: status, shapes: shapes, corrupt: corrupt)
      return
    }
    if case .dispatching = top.position {
      throw corrupt("its one flow stands in a dispatch, which only format 2 holds.")
    }
    switch (status, top.position) {
    case (.waitingForInput(let state), .waitingForInput(let key)) where state.isEmpty == false:
      _ = key
    case (.waitingForInput, _), (_, .waitingForInput):
      throw corrupt(
        "its status is \(status), but its top-level flow \(top.position.description)."
      )
    // A run held at its start (resumed paused) at a delay is paused there.
    case (.waitingUntil(_, let state), .waitingUntil) where state.isEmpty == false: break
    case (.paused, .waitingUntil): break
    case (.waitingUntil, _), (_, .waitingUntil):
      throw corrupt(
        "its status is \(status), but its top-level flow \(top.position.description)."
      )
    case (.finished, .finished): break
    case (.finished, _), (_, .finished):
      throw corrupt(
        "its status is \(status), but its top-level flow \(top.position.description)."
      )
    default: break
    }
  }

  /// Checks flow `number`, a branch: its parent is an earlier flow that stands in the
  /// dispatch it names, its index is one of the dispatch's branches (by the dispatch's
  /// shape), and no other flow runs that branch.
  private static func check(
    _ branch: FlowSnapshot<Context>.Branch, of number: Int32, at position: SnapshotPosition,
    after flows: [FlowSnapshot<Context>], shapes: [String: StateShape],
    corrupt: (String) -> DecodingError
  ) throws {
    guard let parent = flows.first(where: { $0.flow == branch.parent }) else {
      throw corrupt(
        "flow \(number) is a branch of flow \(branch.parent), which no earlier flow is.")
    }
    guard case .dispatching(let key) = parent.position, key == branch.dispatch else {
      throw corrupt(
        "flow \(number) is a branch of dispatch \(DisplayText.quoted(name: branch.dispatch)) of flow \(branch.parent), but that flow \(parent.position.description)."
      )
    }
    let count = shapes[key]?.exits.filter { $0.hasPrefix("branch ") }.count ?? 0
    guard branch.index >= 0, branch.index < count else {
      throw corrupt(
        "flow \(number) is branch \(branch.index) of dispatch \(DisplayText.quoted(name: key)), which has \(count) branch\(count == 1 ? "" : "es") (numbered from 0)."
      )
    }
    guard
      !flows.contains(where: {
        $0.branch?.parent == branch.parent && $0.branch?.index == branch.index
      })
    else {
      throw corrupt(
        "two flows are branch \(branch.index) of dispatch \(DisplayText.quoted(name: key)) of flow \(branch.parent)."
      )
    }
    guard flows.allSatisfy({ $0.flow != number }) else {
      throw corrupt("two flows are numbered \(number).")
    }
    if case .notEntered = position {
      throw corrupt("flow \(number), a branch, entered no state; a branch enters its first.")
    }
  }

  /// Checks the flows of a format-2 snapshot against its status, and that every flow that
  /// stands in a dispatch has a branch that has not finished.
  private static func checkFlows(
    _ flows: [FlowSnapshot<Context>], status: RunStatus, shapes: [String: StateShape],
    corrupt: (String) -> DecodingError
  ) throws {
    if flows.count == 1, flows[0].nested != nil || flows[0].map != nil {
      // A run whose one flow stands in a subflow: it is running (or paused).
      switch status {
      case .running, .paused: return
      case .waitingForInput, .waitingUntil, .finished, .failed, .cancelled:
        throw corrupt("its status is \(status), but its top-level flow stands in a subflow.")
      }
    }
    guard case .dispatching = flows[0].position else {
      throw corrupt(
        "it holds \(flows.count) flows, but its top-level flow \(flows[0].position.description), not in a dispatch."
      )
    }
    for flow in flows {
      guard case .dispatching(let key) = flow.position else { continue }
      let finished = flows.filter {
        guard $0.branch?.parent == flow.flow, case .finished = $0.position else { return false }
        return true
      }
      let count = shapes[key]?.exits.filter { $0.hasPrefix("branch ") }.count ?? 0
      guard finished.count < count else {
        throw corrupt(
          "every branch of dispatch \(DisplayText.quoted(name: key)) of flow \(flow.flow) finished, so the dispatch would have joined."
        )
      }
    }
    switch status {
    case .waitingForInput:
      guard
        flows.contains(where: {
          if case .waitingForInput = $0.position { return true }
          return false
        })
      else { throw corrupt("its status is \(status), but none of its flows waits for input.") }
    case .waitingUntil:
      guard
        flows.contains(where: {
          if case .waitingUntil = $0.position { return true }
          return false
        })
      else { throw corrupt("its status is \(status), but none of its flows waits for a time.") }
    case .finished, .failed, .cancelled:
      throw corrupt(
        "its status is \(status), but its top-level flow stands in a dispatch whose branches run.")
    case .running, .paused: break
    }
  }

  /// The values waiting to be taken, each for a state the table of shapes describes.
  private static func decodeMailbox(
    _ container: KeyedDecodingContainer<SnapshotCodingKey>, shapes: [String: StateShape],
    corrupt: (String) -> DecodingError
  ) throws -> [MailboxEntry] {
    var mailboxContainer = try container.nestedUnkeyedContainer(forKey: .mailbox)
    var mailbox: [MailboxEntry] = []
    while !mailboxContainer.isAtEnd {
      let entryContainer = try mailboxContainer.nestedContainer(keyedBy: SnapshotCodingKey.self)
      let state = try entryContainer.decode(String.self, forKey: .state)
      let value = try entryContainer.decode(SnapshotValue.self, forKey: .value)
      guard shapes[state] != nil else {
        throw corrupt(
          "a value waits for \(DisplayText.quoted(name: state)), which its table of shapes does not describe."
        )
      }
      guard !mailbox.contains(where: { $0.state == state }) else {
        throw corrupt(
          "two values wait for \(DisplayText.quoted(name: state)); a waiting state keeps one.")
      }
      mailbox.append(MailboxEntry(state: state, value: .encoded(value)))
    }
    return mailbox
  }
}
