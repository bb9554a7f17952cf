// A subflow's inner run in a snapshot (format 2): the `"subflow"` object of a flow whose
// position is `"inSubflow"`, and of an inner run that stands in a subflow of its own.
//
//   {"flow": 0, "position": "inSubflow", "at": "Pay",
//    "context": {"…": "the outer context from before the subflow"},
//    "path": ["Prepare", "Pay"], "stepCount": 2, "attempt": 1,
//    "subflow": {
//      "fingerprint": "…the inner chart's structural fingerprint…",
//      "position": "waitingUntil", "at": "Wait a day", "deadline": "2026-01-02T00:00:00Z",
//      "context": {"…": "the inner context"},
//      "path": ["Charge", "Wait a day"], "stepCount": 2, "attempt": 1,
//      "shapes": {"Wait a day": {"kind": "delay", "final": false, "exits": ["next → Done"]}}}}
//
// The inner run's keys, path and shapes are in the inner chart's key space. Its position
// is `entering` (with an `attempt` above 1 and a `deadline` between two attempts),
// `waitingUntil` (with its `deadline`), `inSubflow` (with a `subflow` object of its own), or
// `inMap` (with a `map` object, `MapSnapshot.swift`), or `dispatching`: the inner run
// stands in a dispatch of its chart, whose branches are the inner run's other flows, in an
// optional `"flows"` array (a key format 2 may lack: an inner run of one flow has none).
// Each is a flow object as a run's `flows` holds them, in the inner chart's key space:
// `flow` (numbered from 1; the inner run's own flow is 0), `parent`, `dispatch` and `branch`
// (which branch of which flow's dispatch it runs), `position` (any of the above, or
// `finished` with its `decision`: a branch's result that awaits the join), `at`, `context`,
// `path`, `stepCount`, `attempt`, `deadline`, and a `subflow` object when it stands in a
// subflow, or a `map` object when it stands in a map (`inMap`), as the inner run's own flow:
//
//   "subflow": {"fingerprint": "…", "position": "dispatching", "at": "Both", …,
//     "flows": [
//       {"flow": 1, "parent": 0, "dispatch": "Both", "branch": 0, "position": "finished",
//        "at": "Charge", "decision": {"value": "done"}, "context": {…}, "path": [...], …},
//       {"flow": 2, "parent": 0, "dispatch": "Both", "branch": 1, "position": "waitingUntil",
//        "at": "Wait a day", "deadline": "2026-01-02T00:00:00Z", "context": {…}, …}]}
//
// Two optional keys describe the subflow state that runs the inner run, when it has
// modifiers: `stateAttempt`, its attempt (written when above 1), and `timeout`, the absolute
// deadline of that attempt's timeout. They belong to the inner run as a whole (the subflow
// object, never a flow of `flows`). A snapshot without them is at attempt 1 with no
// timeout, as every snapshot written before them.

/// A subflow's inner run, as a snapshot holds it: where its flow stands on the inner chart,
/// its context (of the inner chart's type, so kept as a live value or as decoded JSON until
/// resume knows the type), its path and step count, and, when it stands in a subflow of
/// its own, that subflow's inner run.
final class NestedSnapshot: Sendable {
  /// The inner chart's ``Flowchart/structuralFingerprint``.
  let fingerprint: String
  /// Where the inner flow stands: ``SnapshotPosition/entering(_:)`` (in a subflow when
  /// ``inner`` is set), ``SnapshotPosition/waitingUntil(_:)``, or
  /// ``SnapshotPosition/dispatching(_:)`` (its branches in ``branches``).
  let position: SnapshotPosition
  /// The inner context: as it was before the state at ``position``.
  let context: MailboxEntry.Value
  let path: [String]
  let stepCount: Int
  let attempt: Int
  let deadline: WallClockTime?
  /// The shape of the state at ``position`` (and of its inner runs' positions, in theirs).
  let shapes: [String: StateShape]
  /// The inner run of the subflow the inner flow stands in.
  let inner: NestedSnapshot?
  /// The runs of the map the inner flow stands in.
  let map: MapSnapshot?
  /// The attempt of the subflow state that runs this inner run, and its timeout's deadline:
  /// the inner run's as a whole, whichever of its flows stand where.
  let entered: SubflowAttempt
  /// The inner run's other flows, when its own flow stands in a dispatch: each branch
  /// after the flow that dispatched it (numbered from 1; the inner run's own flow is 0).
  let branches: [Record]

  /// One flow of an inner run: where it stands, and the dispatch branch it runs.
  struct Record: Sendable {
    var flow: Int32
    /// Where the flow stands: as for the inner run's own flow, or, for a branch,
    /// ``SnapshotPosition/dispatching(_:)`` or ``SnapshotPosition/finished(_:_:)`` too.
    var position: SnapshotPosition
    var context: MailboxEntry.Value
    var path: [String]
    var stepCount: Int
    var attempt: Int
    var deadline: WallClockTime?
    /// The dispatch branch the flow runs; `nil` for the inner run's own flow.
    var branch: Branch?
    /// The inner run of the subflow the flow stands in.
    var inner: NestedSnapshot?
    /// The runs of the map the flow stands in.
    var map: MapSnapshot?
  }

  /// Which branch of which flow's dispatch a flow of the inner run runs.
  struct Branch: Hashable, Sendable {
    var parent: Int32
    /// The dispatch's position key, in the inner chart.
    var dispatch: String
    var index: Int
  }

  init(
    fingerprint: String, position: SnapshotPosition, context: MailboxEntry.Value,
    path: [String], stepCount: Int, attempt: Int, deadline: WallClockTime?,
    shapes: [String: StateShape], inner: NestedSnapshot?, map: MapSnapshot? = nil,
    entered: SubflowAttempt = .first, branches: [Record] = []
  ) {
    self.fingerprint = fingerprint
    self.position = position
    self.context = context
    self.path = path
    self.stepCount = stepCount
    self.attempt = attempt
    self.deadline = deadline
    self.shapes = shapes
    self.inner = inner
    self.map = map
    self.entered = entered
    self.branches = branches
  }

  /// The inner run's own flow, as a record.
  var top: Record {
    Record(
      flow: 0, position: position, context: context, path: path, stepCount: stepCount,
      attempt: attempt, deadline: deadline, branch: nil, inner: inner, map: map)
  }

  /// How deep subflows may nest in a snapshot: deeper is refused as damaged.
  static let maximumDepth = 32

  /// Writes the inner run into `container`, the `subflow` object; `subflow` names the
  /// subflow state, for an error.
  func encode(
    into container: inout KeyedEncodingContainer<SnapshotCodingKey>, subflow: String
  ) throws {
    try container.encode(fingerprint, forKey: .fingerprint)
    try entered.encode(into: &container)
    try Self.encode(top, into: &container, subflow: subflow, withInner: false)
    var shapesContainer = container.nestedContainer(keyedBy: ShapeKey.self, forKey: .shapes)
    try StateShape.encode(shapes, into: &shapesContainer)
    if let inner, let key = position.key {
      var innerContainer = container.nestedContainer(
        keyedBy: SnapshotCodingKey.self, forKey: .subflow)
      try inner.encode(into: &innerContainer, subflow: key)
    } else if let map, let key = position.key {
      var mapContainer = container.nestedContainer(keyedBy: SnapshotCodingKey.self, forKey: .map)
      try map.encode(into: &mapContainer, map: key)
    }
    guard !branches.isEmpty else { return }
    var flowsContainer = container.nestedUnkeyedContainer(forKey: .flows)
    for record in branches {
      var flowContainer = flowsContainer.nestedContainer(keyedBy: SnapshotCodingKey.self)
      try flowContainer.encode(record.flow, forKey: .flow)
      if let branch = record.branch {
        try flowContainer.encode(branch.parent, forKey: .parent)
        try flowContainer.encode(branch.dispatch, forKey: .dispatch)
        try flowContainer.encode(branch.index, forKey: .branch)
      }
      try Self.encode(record, into: &flowContainer, subflow: subflow, withInner: true)
    }
  }

  /// Writes one flow of the inner run: its position, context, path, counters and, with
  /// `withInner`, the subflow or the map it stands in.
  private static func encode(
    _ record: Record, into container: inout KeyedEncodingContainer<SnapshotCodingKey>,
    subflow: String, withInner: Bool
  ) throws {
    if record.inner != nil, let key = record.position.key {
      try container.encode("inSubflow", forKey: .position)
      try container.encode(key, forKey: .at)
    } else if record.map != nil, let key = record.position.key {
      try container.encode("inMap", forKey: .position)
      try container.encode(key, forKey: .at)
    } else {
      try record.position.encode(into: &container)
    }
    switch record.context {
    case .encoded(let value):
      try container.encode(value, forKey: .context)
    case .live(let value):
      guard let encodable = value as? any Encodable else {
        throw EncodingError.invalidValue(
          value,
          EncodingError.Context(
            codingPath: container.codingPath,
            debugDescription:
              "The context of subflow \(DisplayText.quoted(name: subflow)) is \(DisplayText.withArticle(typeName: "\(type(of: value))")), which is not Encodable: make it Codable."
          ))
      }
      try container.encode(encodable, forKey: .context)
    }
    var pathContainer = container.nestedUnkeyedContainer(forKey: .path)
    for key in record.path { try pathContainer.encode(key) }
    try container.encode(record.stepCount, forKey: .stepCount)
    try container.encode(record.attempt, forKey: .attempt)
    try container.encodeIfPresent(record.deadline?.description, forKey: .deadline)
    if withInner, let inner = record.inner, let key = record.position.key {
      var innerContainer = container.nestedContainer(
        keyedBy: SnapshotCodingKey.self, forKey: .subflow)
      try inner.encode(into: &innerContainer, subflow: key)
    } else if withInner, let map = record.map, let key = record.position.key {
      var mapContainer = container.nestedContainer(keyedBy: SnapshotCodingKey.self, forKey: .map)
      try map.encode(into: &mapContainer, map: key)
    }
  }

  /// Reads and checks the `subflow` object of flow `flow`, which stands in subflow
  /// `subflow`, `depth` subflows deep.
  static func decode(
    from container: KeyedDecodingContainer<SnapshotCodingKey>, flow: Int32, subflow: String,
    depth: Int, corrupt: (String) -> DecodingError
  ) throws -> NestedSnapshot {
    let who = "the inner run of subflow \(DisplayText.quoted(name: subflow)) in flow \(flow)"
    guard depth <= maximumDepth else {
      throw corrupt("\(who) nests subflows more than \(maximumDepth) deep.")
    }
    let fingerprint = try container.decode(String.self, forKey: .fingerprint)
    let entered = try SubflowAttempt.decode(from: container, who: who, corrupt: corrupt)
    let shapes = try StateShape.decode(
      try container.nestedContainer(keyedBy: ShapeKey.self, forKey: .shapes))
    let top = try decodeFlow(
      from: container, who: who, shapes: shapes, isBranch: false, flow: flow, depth: depth,
      corrupt: corrupt)
    var branches: [Record] = []
    if container.contains(.flows) {
      var flowsContainer = try container.nestedUnkeyedContainer(forKey: .flows)
      while !flowsContainer.isAtEnd {
        let flowContainer = try flowsContainer.nestedContainer(keyedBy: SnapshotCodingKey.self)
        let number = try flowContainer.decode(Int32.self, forKey: .flow)
        let branchWho = "flow \(number) of \(who)"
        var record = try decodeFlow(
          from: flowContainer, who: branchWho, shapes: shapes, isBranch: true, flow: flow,
          depth: depth, corrupt: corrupt)
        record.flow = number
        let branch = Branch(
          parent: try flowContainer.decode(Int32.self, forKey: .parent),
          dispatch: try flowContainer.decode(String.self, forKey: .dispatch),
          index: try flowContainer.decode(Int.self, forKey: .branch))
        try check(
          branch, of: number, who: branchWho, after: [top] + branches, shapes: shapes,
          corrupt: corrupt)
        record.branch = branch
        branches.append(record)
      }
    }
    // Every dispatch that stands has a branch that has not finished: one whose branches all
    // finished would have joined.
    for record in [top] + branches {
      guard case .dispatching(let key) = record.position else { continue }
      let finished = branches.filter {
        guard $0.branch?.parent == record.flow, case .finished = $0.position else { return false }
        return true
      }
      let count = shapes[key]?.exits.filter { $0.hasPrefix("branch ") }.count ?? 0
      guard finished.count < count else {
        throw corrupt(
          "every branch of dispatch \(DisplayText.quoted(name: key)) of flow \(record.flow) of \(who) finished, so the dispatch would have joined."
        )
      }
    }
    return NestedSnapshot(
      fingerprint: fingerprint, position: top.position, context: top.context, path: top.path,
      stepCount: top.stepCount, attempt: top.attempt, deadline: top.deadline, shapes: shapes,
      inner: top.inner, map: top.map, entered: entered, branches: branches)
  }

  /// Checks a branch of the inner run: its parent is an earlier flow that stands in the
  /// dispatch it names, its index is one of the dispatch's branches (by the dispatch's
  /// shape), and no other flow runs that branch or has its number.
  private static func check(
    _ branch: Branch, of number: Int32, who: String, after flows: [Record],
    shapes: [String: StateShape], corrupt: (String) -> DecodingError
  ) throws {
    guard number > 0, flows.allSatisfy({ $0.flow != number }) else {
      throw corrupt(
        "\(who) has the number of another flow (the inner run's own flow is 0, its branches are numbered from 1, each once)."
      )
    }
    guard let parent = flows.first(where: { $0.flow == branch.parent }) else {
      throw corrupt("\(who) is a branch of flow \(branch.parent), which no earlier flow is.")
    }
    guard case .dispatching(let key) = parent.position, key == branch.dispatch else {
      throw corrupt(
        "\(who) is a branch of dispatch \(DisplayText.quoted(name: branch.dispatch)) of flow \(branch.parent), but that flow \(parent.position.description)."
      )
    }
    let count = shapes[key]?.exits.filter { $0.hasPrefix("branch ") }.count ?? 0
    guard branch.index >= 0, branch.index < count else {
      throw corrupt(
        "\(who) is branch \(branch.index) of dispatch \(DisplayText.quoted(name: key)), which has \(count) branch\(count == 1 ? "" : "es") (numbered from 0)."
      )
    }
    guard
      !flows.contains(where: {
        $0.branch?.parent == branch.parent && $0.branch?.index == branch.index
      })
    else {
      throw corrupt(
        "two flows are branch \(branch.index) of dispatch \(DisplayText.quoted(name: key)) of flow \(branch.parent) of the inner run."
      )
    }
  }

  /// Reads and checks one flow of an inner run: its own flow (`isBranch` false) or a
  /// dispatch branch, which may also have finished; `flow` and `depth` as for
  /// ``decode(from:flow:subflow:depth:corrupt:)``.
  private static func decodeFlow(
    from container: KeyedDecodingContainer<SnapshotCodingKey>, who: String,
    shapes: [String: StateShape], isBranch: Bool, flow: Int32, depth: Int,
    corrupt: (String) -> DecodingError
  ) throws -> Record {
    let kind = try container.decode(String.self, forKey: .position)
    let inMap = kind == "inMap"
    let inSubflow = kind == "inSubflow" || inMap
    let position: SnapshotPosition =
      inSubflow
      ? .entering(try container.decode(String.self, forKey: .at))
      : try SnapshotPosition(from: container)
    let context = try container.decode(SnapshotValue.self, forKey: .context)
    var pathContainer = try container.nestedUnkeyedContainer(forKey: .path)
    var path: [String] = []
    while !pathContainer.isAtEnd { path.append(try pathContainer.decode(String.self)) }
    let stepCount = try container.decode(Int.self, forKey: .stepCount)
    let attempt = try container.decode(Int.self, forKey: .attempt)
    let deadline = try container.decodeIfPresent(WallClockTime.self, forKey: .deadline)
    guard stepCount >= 0 else { throw corrupt("\(who) has a negative step count.") }
    // An inner run held before its first state has entered none (its position is then its
    // first state, `entering`), and so has a branch held before its first state.
    guard attempt >= 1 else {
      throw corrupt("\(who) is at attempt \(attempt); attempts count from 1.")
    }
    guard path.count == min(stepCount, RunResult<Int>.pathCapacity) else {
      throw corrupt(
        "\(who) entered \(stepCount) states, so its path keeps \(min(stepCount, RunResult<Int>.pathCapacity)), but it lists \(path.count)."
      )
    }
    guard let key = position.key, let shape = shapes[key] else {
      throw corrupt("\(who) stands at a position its table of shapes does not describe.")
    }
    switch position {
    case .entering where inSubflow:
      let noun = inMap ? "map" : "subflow"
      guard attempt == 1, deadline == nil, shape.kind == noun, path.last == key else {
        throw corrupt(
          "\(who) stands in \(DisplayText.quoted(name: key)), which must be \(DisplayText.withArticle(typeName: noun)) it entered last, with no attempt under way and no deadline."
        )
      }
    case .entering where attempt > 1:
      guard deadline != nil, path.last == key else {
        throw corrupt(
          "\(who) is between two attempts of \(DisplayText.quoted(name: key)), so its path ends there and it has a deadline for the next one."
        )
      }
    case .entering:
      guard deadline == nil else {
        throw corrupt("\(who) enters \(DisplayText.quoted(name: key)) next, so it has no deadline.")
      }
    case .waitingUntil:
      guard attempt == 1, deadline != nil, path.last == key else {
        throw corrupt(
          "\(who) waits for a time at \(DisplayText.quoted(name: key)), so it entered it last and has a deadline, and no attempt under way."
        )
      }
    case .dispatching:
      guard attempt == 1, deadline == nil, shape.kind == "dispatch", path.last == key else {
        throw corrupt(
          "\(who) stands in \(DisplayText.quoted(name: key)), which must be a dispatch it entered last, with no attempt under way and no deadline."
        )
      }
    case .finished where isBranch:
      guard attempt == 1, deadline == nil, shape.isFinal, path.last == key else {
        throw corrupt(
          "\(who) finished at \(DisplayText.quoted(name: key)), which must be a final state it entered last, with no attempt under way and no deadline."
        )
      }
    case .waitingForInput, .finished, .notEntered:
      throw corrupt(
        "\(who) \(position.description): an inner run's flow is held only entering a state, at a delay, in a subflow or in a dispatch (and a branch, finished)."
      )
    }
    var inner: NestedSnapshot? = nil
    if inSubflow, !inMap {
      inner = try decode(
        from: try container.nestedContainer(keyedBy: SnapshotCodingKey.self, forKey: .subflow),
        flow: flow, subflow: key, depth: depth + 1, corrupt: corrupt)
    } else if container.contains(.subflow) {
      throw corrupt("\(who) holds a subflow, but does not stand in one.")
    }
    var map: MapSnapshot? = nil
    if inMap {
      map = try MapSnapshot.decode(
        from: try container.nestedContainer(keyedBy: SnapshotCodingKey.self, forKey: .map),
        flow: flow, map: key, depth: depth + 1, corrupt: corrupt)
    } else if container.contains(.map) {
      throw corrupt("\(who) holds a map's runs, but does not stand in a map.")
    }
    if !isBranch, !position.isDispatching, container.contains(.flows) {
      throw corrupt("\(who) holds dispatch branches, but does not stand in a dispatch.")
    }
    // The subflow state's attempt and timeout belong to the inner run as a whole: its
    // `subflow` object holds them, never one of its branches.
    if isBranch, container.contains(.stateAttempt) || container.contains(.timeout) {
      throw corrupt(
        "\(who) holds the subflow state's attempt or timeout (`stateAttempt`, `timeout`), which belong to the inner run as a whole: write them on its `subflow` object."
      )
    }
    return Record(
      flow: 0, position: position, context: .encoded(context), path: path,
      stepCount: stepCount, attempt: attempt, deadline: deadline, branch: nil, inner: inner,
      map: map)
  }
}

extension StateShape {
  /// Writes a table of shapes, by position key.
  static func encode(
    _ shapes: [String: StateShape], into container: inout KeyedEncodingContainer<ShapeKey>
  ) throws {
    for (key, shape) in shapes {
      var shapeContainer = container.nestedContainer(
        keyedBy: StateShape.CodingKeys.self, forKey: ShapeKey(key))
      try shapeContainer.encode(shape.kind, forKey: .kind)
      try shapeContainer.encode(shape.isFinal, forKey: .isFinal)
      var exitsContainer = shapeContainer.nestedUnkeyedContainer(forKey: .exits)
      for exit in shape.exits { try exitsContainer.encode(exit) }
    }
  }

  /// Reads a table of shapes, by position key.
  static func decode(_ container: KeyedDecodingContainer<ShapeKey>) throws -> [String: StateShape] {
    var shapes: [String: StateShape] = [:]
    for key in container.allKeys {
      let shapeContainer = try container.nestedContainer(
        keyedBy: StateShape.CodingKeys.self, forKey: key)
      var exitsContainer = try shapeContainer.nestedUnkeyedContainer(forKey: .exits)
      var exits: [String] = []
      while !exitsContainer.isAtEnd { exits.append(try exitsContainer.decode(String.self)) }
      shapes[key.stringValue] = StateShape(
        kind: try shapeContainer.decode(String.self, forKey: .kind),
        isFinal: try shapeContainer.decode(Bool.self, forKey: .isFinal), exits: exits)
    }
    return shapes
  }
}

extension SubflowAttempt {
  /// Writes the optional keys `stateAttempt` (above 1 only) and `timeout`.
  func encode(into container: inout KeyedEncodingContainer<SnapshotCodingKey>) throws {
    if attempt != 1 { try container.encode(attempt, forKey: .stateAttempt) }
    try container.encodeIfPresent(timeout?.description, forKey: .timeout)
  }

  /// Reads and checks the optional keys `stateAttempt` and `timeout` of the inner run (or
  /// map) `who`: attempt 1 and no timeout when they are missing.
  static func decode(
    from container: KeyedDecodingContainer<SnapshotCodingKey>, who: String,
    corrupt: (String) -> DecodingError
  ) throws -> SubflowAttempt {
    let attempt = try container.decodeIfPresent(Int.self, forKey: .stateAttempt) ?? 1
    guard attempt >= 1, attempt < .max else {
      throw corrupt(
        "\(who) is run by attempt \(attempt) of its state; attempts count from 1.")
    }
    let timeout = try container.decodeIfPresent(WallClockTime.self, forKey: .timeout)
    return SubflowAttempt(attempt: attempt, timeout: timeout)
  }
}
