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
// `inMap` (with a `map` object, `MapSnapshot.swift`).
//
// Two optional keys describe the subflow state that runs the inner run, when it has
// modifiers: `stateAttempt`, its attempt (written when above 1), and `timeout`, the absolute
// deadline of that attempt's timeout. A snapshot without them is at attempt 1 with no
// timeout, as every snapshot written before them.

/// A subflow's inner run, as a snapshot holds it: where its flow stands on the inner chart,
/// its context (of the inner chart's type, so kept as a live value or as decoded JSON until
/// resume knows the type), its path and step count, and, when it stands in a subflow of
/// its own, that subflow's inner run.
final class NestedSnapshot: Sendable {
  /// The inner chart's ``Flowchart/structuralFingerprint``.
  let fingerprint: String
  /// Where the inner flow stands: ``SnapshotPosition/entering(_:)`` (in a subflow when
  /// ``inner`` is set), or ``SnapshotPosition/waitingUntil(_:)``.
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
  /// The attempt of the subflow state that runs this inner run, and its timeout's deadline.
  let entered: SubflowAttempt

  init(
    fingerprint: String, position: SnapshotPosition, context: MailboxEntry.Value,
    path: [String], stepCount: Int, attempt: Int, deadline: WallClockTime?,
    shapes: [String: StateShape], inner: NestedSnapshot?, map: MapSnapshot? = nil,
    entered: SubflowAttempt = .first
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
    if inner != nil, let key = position.key {
      try container.encode("inSubflow", forKey: .position)
      try container.encode(key, forKey: .at)
    } else if map != nil, let key = position.key {
      try container.encode("inMap", forKey: .position)
      try container.encode(key, forKey: .at)
    } else {
      try position.encode(into: &container)
    }
    switch context {
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
    for key in path { try pathContainer.encode(key) }
    try container.encode(stepCount, forKey: .stepCount)
    try container.encode(attempt, forKey: .attempt)
    try container.encodeIfPresent(deadline?.description, forKey: .deadline)
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
    let shapes = try StateShape.decode(
      try container.nestedContainer(keyedBy: ShapeKey.self, forKey: .shapes))
    guard stepCount >= 0 else { throw corrupt("\(who) has a negative step count.") }
    guard stepCount > 0 else { throw corrupt("\(who) entered no state, so it stands nowhere.") }
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
    case .waitingForInput, .dispatching, .finished, .notEntered:
      throw corrupt(
        "\(who) \(position.description): an inner run is held only entering a state, at a delay, or in a subflow."
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
    return NestedSnapshot(
      fingerprint: fingerprint, position: position, context: .encoded(context), path: path,
      stepCount: stepCount, attempt: attempt, deadline: deadline, shapes: shapes, inner: inner,
      map: map, entered: entered)
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
