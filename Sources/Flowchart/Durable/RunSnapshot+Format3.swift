// Format 3 of a snapshot: the run's own fields in as few containers and keys as the format
// can hold them, which is what encoding and decoding a snapshot pays beyond its context.
//
//   {"formatVersion": 3, "id": "order-42", "chart": "orders",
//    "fingerprint": "c0e521418e1dbbc4", "updated": "2026-01-01T00:00:00Z",
//    "position": ["waitingForInput", "Approve"],
//    "context": {"…": "the context, as it encodes"},
//    "path": ["Charge", "Approve"],
//    "shapes": [["Approve", "waiting state", false, "next → Ship"]]}
//
// The top-level flow's fields are the snapshot's own (no `flows` array, no flow number);
// each dispatch branch is an object in `branches`, numbered 1, 2, … in order, that names
// its parent's number and its index (`"branch": [0, 1]`). A field that has its default is
// not written, and reads as that default: `chart` (""), `status` (what the top-level flow's
// position says, when it says one), `stepLimit` (none), `stepCount` (the path's length),
// `attempt` (1), `branches` and `mailbox` (none). Small fixed records are arrays: a
// position `[kind, key]` (`["finished", key, decision]`, `["finished", key, "key", K]`,
// `["notEntered"]`), a status `[name]`, `[name, state]`, `["waitingUntil", state, until]`
// or `["failed", reason]` / `["failed", reason, state]`, a shape `[key, kind, final,
// exits…]`, a value waiting to be taken `[state, value]`. A subflow's inner run and a map's
// runs are the `subflow` and `map` objects of format 2, unchanged.

extension RunSnapshot where Context: Encodable {
  /// Writes the snapshot in format 3 (see the top of this file).
  func encodeFormat3(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: SnapshotCodingKey.self)
    try container.encode(3, forKey: .formatVersion)
    try container.encode(id.text, forKey: .id)
    if !chart.isEmpty { try container.encode(chart, forKey: .chart) }
    try container.encode(fingerprint, forKey: .fingerprint)
    if status != flows[0].impliedStatus {
      var statusContainer = container.nestedUnkeyedContainer(forKey: .status)
      try status.encodeFormat3(into: &statusContainer)
    }
    try container.encode(updated.description, forKey: .updated)
    if stepLimit != .max { try container.encode(stepLimit, forKey: .stepLimit) }
    try flows[0].encodeFormat3(into: &container)
    if flows.count > 1 {
      var branchesContainer = container.nestedUnkeyedContainer(forKey: .branches)
      for flow in flows.dropFirst() {
        var flowContainer = branchesContainer.nestedContainer(keyedBy: SnapshotCodingKey.self)
        if let branch = flow.branch {
          var branchContainer = flowContainer.nestedUnkeyedContainer(forKey: .branch)
          // Flows are numbered by their place: the top-level flow 0, the branches from 1.
          try branchContainer.encode(flows.firstIndex { $0.flow == branch.parent } ?? 0)
          try branchContainer.encode(branch.index)
        }
        try flow.encodeFormat3(into: &flowContainer)
      }
    }
    if !mailbox.isEmpty {
      var mailboxContainer = container.nestedUnkeyedContainer(forKey: .mailbox)
      for entry in mailbox {
        var entryContainer = mailboxContainer.nestedUnkeyedContainer()
        try entryContainer.encode(entry.state)
        switch entry.value {
        case .encoded(let value):
          try entryContainer.encode(value)
        case .live(let value):
          guard let encodable = value as? any Encodable else {
            throw EncodingError.invalidValue(
              value,
              EncodingError.Context(
                codingPath: entryContainer.codingPath,
                debugDescription:
                  "The value waiting for waiting state \(DisplayText.quoted(name: entry.state)) is \(DisplayText.withArticle(typeName: "\(type(of: value))")), which is not Encodable: make the type the state waits for Codable, or snapshot the run once the state has taken the value."
              ))
          }
          try entryContainer.encode(encodable)
        }
      }
    }
    var shapesContainer = container.nestedUnkeyedContainer(forKey: .shapes)
    for key in shapes.keys.sorted() {
      guard let shape = shapes[key] else { continue }
      var shapeContainer = shapesContainer.nestedUnkeyedContainer()
      try shapeContainer.encode(key)
      try shapeContainer.encode(shape.kind)
      try shapeContainer.encode(shape.isFinal)
      for exit in shape.exits { try shapeContainer.encode(exit) }
    }
  }
}

extension FlowSnapshot where Context: Encodable {
  /// Writes the flow's fields into `container` (the snapshot's own, for the top-level flow),
  /// in format 3: those with their default value are left out.
  fileprivate func encodeFormat3(into container: inout KeyedEncodingContainer<SnapshotCodingKey>)
    throws
  {
    var positionContainer = container.nestedUnkeyedContainer(forKey: .position)
    if nested != nil, let key = position.key {
      try positionContainer.encode("inSubflow")
      try positionContainer.encode(key)
    } else if map != nil, let key = position.key {
      try positionContainer.encode("inMap")
      try positionContainer.encode(key)
    } else {
      try position.encodeFormat3(into: &positionContainer)
    }
    try container.encode(context, forKey: .context)
    var pathContainer = container.nestedUnkeyedContainer(forKey: .path)
    for key in path { try pathContainer.encode(key) }
    if stepCount != path.count { try container.encode(stepCount, forKey: .stepCount) }
    if attempt != 1 { try container.encode(attempt, forKey: .attempt) }
    try container.encodeIfPresent(deadline?.description, forKey: .deadline)
    if let nested, let key = position.key {
      var nestedContainer = container.nestedContainer(
        keyedBy: SnapshotCodingKey.self, forKey: .subflow)
      try nested.encode(into: &nestedContainer, subflow: key)
    }
    if let map, let key = position.key {
      var mapContainer = container.nestedContainer(keyedBy: SnapshotCodingKey.self, forKey: .map)
      try map.encode(into: &mapContainer, map: key)
    }
  }
}

extension FlowSnapshot {
  /// The status a snapshot whose top-level flow this is has unless it says another: waiting
  /// for input or for a time where the flow does, finished where it finished; `nil` where
  /// the position implies none (format 3 then writes the status).
  var impliedStatus: RunStatus? {
    switch position {
    case .waitingForInput(let key): .waitingForInput(state: key)
    case .waitingUntil(let key): deadline.map { .waitingUntil($0, state: key) }
    case .finished: .finished
    case .entering, .dispatching, .notEntered: nil
    }
  }
}

extension RunSnapshot where Context: Decodable {
  /// Reads and checks a snapshot in format 3 from `container`, the snapshot's object.
  init(
    format3 container: KeyedDecodingContainer<SnapshotCodingKey>,
    corrupt: (String) -> DecodingError
  ) throws {
    let text = try container.decode(String.self, forKey: .id)
    guard let id = RunID(text) else {
      throw corrupt("its id is not a run id. \(RunID.problem(with: text) ?? "")")
    }
    let chart = try container.decodeIfPresent(String.self, forKey: .chart) ?? ""
    let fingerprint = try container.decode(String.self, forKey: .fingerprint)
    var status: RunStatus? = nil
    if container.contains(.status) {
      var statusContainer = try container.nestedUnkeyedContainer(forKey: .status)
      status = try RunStatus(format3: &statusContainer, corrupt: corrupt)
    }
    let updated = try Self.time(container.decode(String.self, forKey: .updated), corrupt: corrupt)
    let stepLimit = try container.decodeIfPresent(Int.self, forKey: .stepLimit) ?? .max
    guard stepLimit >= 0 else { throw corrupt("its step limit is negative (\(stepLimit)).") }
    var shapesContainer = try container.nestedUnkeyedContainer(forKey: .shapes)
    var shapes: [String: StateShape] = [:]
    while !shapesContainer.isAtEnd {
      var shapeContainer = try shapesContainer.nestedUnkeyedContainer()
      let key = try shapeContainer.decode(String.self)
      let kind = try shapeContainer.decode(String.self)
      let isFinal = try shapeContainer.decode(Bool.self)
      var exits: [String] = []
      while !shapeContainer.isAtEnd { exits.append(try shapeContainer.decode(String.self)) }
      guard
        shapes.updateValue(StateShape(kind: kind, isFinal: isFinal, exits: exits), forKey: key)
          == nil
      else {
        throw corrupt("its table of shapes describes \(DisplayText.quoted(name: key)) twice.")
      }
    }
    if container.contains(.branch) {
      throw corrupt(
        "its top-level flow names a parent flow and a branch (\"branch\"), which only the flows in \"branches\" do."
      )
    }
    var flows = [
      try Self.checkedFlow(
        Self.flowFormat3(container, number: 0, branch: nil, corrupt: corrupt),
        in: container, after: [], stepLimit: stepLimit, shapes: shapes, corrupt: corrupt)
    ]
    if container.contains(.branches) {
      var branchesContainer = try container.nestedUnkeyedContainer(forKey: .branches)
      while !branchesContainer.isAtEnd {
        let flowContainer = try branchesContainer.nestedContainer(keyedBy: SnapshotCodingKey.self)
        guard let number = Int32(exactly: flows.count) else {
          throw corrupt("it holds more flows than a run can.")
        }
        guard flowContainer.contains(.branch) else {
          throw corrupt(
            "flow \(number) is not the first, so it is a dispatch branch, but it names no parent flow and branch."
          )
        }
        var branchContainer = try flowContainer.nestedUnkeyedContainer(forKey: .branch)
        let parent = try branchContainer.decode(Int32.self)
        let index = try branchContainer.decode(Int.self)
        guard branchContainer.isAtEnd else {
          throw corrupt("flow \(number)'s branch is [parent, index], and it holds more.")
        }
        // The dispatch is where the parent stands; a parent that is no earlier flow is
        // refused by `check(_:of:at:after:shapes:corrupt:)`.
        var dispatch = ""
        if let parentFlow = flows.first(where: { $0.flow == parent }) {
          guard case .dispatching(let key) = parentFlow.position else {
            throw corrupt(
              "flow \(number) is a branch of flow \(parent), but that flow \(parentFlow.position.description), not in a dispatch."
            )
          }
          dispatch = key
        }
        flows.append(
          try Self.checkedFlow(
            Self.flowFormat3(
              flowContainer, number: number,
              branch: FlowSnapshot<Context>.Branch(
                parent: parent, dispatch: dispatch, index: index),
              corrupt: corrupt),
            in: flowContainer, after: flows, stepLimit: stepLimit, shapes: shapes,
            corrupt: corrupt))
      }
    }
    guard let status = status ?? flows[0].impliedStatus else {
      throw corrupt(
        "it names no status, and its top-level flow \(flows[0].position.description), which says none: a snapshot names its status unless its top-level flow waits for input, waits for a time or finished."
      )
    }
    try Self.check(flows, status: status, version: 3, shapes: shapes, corrupt: corrupt)
    var mailbox: [MailboxEntry] = []
    if container.contains(.mailbox) {
      var mailboxContainer = try container.nestedUnkeyedContainer(forKey: .mailbox)
      while !mailboxContainer.isAtEnd {
        var entryContainer = try mailboxContainer.nestedUnkeyedContainer()
        let state = try entryContainer.decode(String.self)
        let value = try entryContainer.decode(SnapshotValue.self)
        guard entryContainer.isAtEnd else {
          throw corrupt(
            "the value waiting for \(DisplayText.quoted(name: state)) is [state, value], and it holds more."
          )
        }
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
    }
    self.init(
      id: id, chart: chart, fingerprint: fingerprint, status: status, updated: updated,
      stepLimit: stepLimit, flows: flows, mailbox: mailbox, shapes: shapes, formatVersion: 3)
  }

  /// The fields of flow `number` in format 3, read from `container` (the snapshot's object
  /// for the top-level flow), with its defaults; what it stands in is read by
  /// ``checkedFlow(_:in:after:stepLimit:shapes:corrupt:)``.
  private static func flowFormat3(
    _ container: KeyedDecodingContainer<SnapshotCodingKey>, number: Int32,
    branch: FlowSnapshot<Context>.Branch?, corrupt: (String) -> DecodingError
  ) throws -> (flow: FlowSnapshot<Context>, inSubflow: Bool, inMap: Bool) {
    var positionContainer = try container.nestedUnkeyedContainer(forKey: .position)
    let (position, inSubflow, inMap) = try SnapshotPosition.format3(
      &positionContainer, flow: number, corrupt: corrupt)
    let context = try container.decode(Context.self, forKey: .context)
    var pathContainer = try container.nestedUnkeyedContainer(forKey: .path)
    var path: [String] = []
    while !pathContainer.isAtEnd { path.append(try pathContainer.decode(String.self)) }
    let stepCount = try container.decodeIfPresent(Int.self, forKey: .stepCount) ?? path.count
    let attempt = try container.decodeIfPresent(Int.self, forKey: .attempt) ?? 1
    let deadline = try container.decodeIfPresent(String.self, forKey: .deadline).map {
      try time($0, corrupt: corrupt)
    }
    return (
      FlowSnapshot(
        flow: number, position: position, context: context, path: path, stepCount: stepCount,
        attempt: attempt, deadline: deadline, branch: branch),
      inSubflow, inMap
    )
  }

  /// ``checkedFlow(_:inSubflow:inMap:in:version:after:stepLimit:shapes:corrupt:)`` of a
  /// flow read in format 3.
  private static func checkedFlow(
    _ read: (flow: FlowSnapshot<Context>, inSubflow: Bool, inMap: Bool),
    in container: KeyedDecodingContainer<SnapshotCodingKey>,
    after flows: [FlowSnapshot<Context>], stepLimit: Int, shapes: [String: StateShape],
    corrupt: (String) -> DecodingError
  ) throws -> FlowSnapshot<Context> {
    try checkedFlow(
      read.flow, inSubflow: read.inSubflow, inMap: read.inMap, in: container, version: 3,
      after: flows, stepLimit: stepLimit, shapes: shapes, corrupt: corrupt)
  }

  /// The instant an RFC 3339 timestamp of the snapshot names.
  private static func time(_ text: String, corrupt: (String) -> DecodingError) throws
    -> WallClockTime
  {
    guard let time = WallClockTime(rfc3339: text) else {
      throw corrupt(
        "\(DisplayText.quoted(name: text)) is not a UTC timestamp such as 2026-11-27T05:40:00Z (RFC 3339, years 1677 to 2262)."
      )
    }
    return time
  }
}

extension RunStatus {
  /// Writes the status as format 3's array: its ``name``, then what it names.
  fileprivate func encodeFormat3(into container: inout any UnkeyedEncodingContainer) throws {
    try container.encode(name)
    switch self {
    case .running, .paused, .cancelled, .finished: break
    case .waitingForInput(let state):
      try container.encode(state)
    case .waitingUntil(let time, let state):
      try container.encode(state)
      try container.encode(time.description)
    case .failed(let state, let reason):
      try container.encode(reason)
      if let state { try container.encode(state) }
    }
  }

  /// Reads a status written by ``encodeFormat3(into:)``.
  fileprivate init(
    format3 container: inout any UnkeyedDecodingContainer, corrupt: (String) -> DecodingError
  ) throws {
    let name = try container.decode(String.self)
    switch name {
    case "running": self = .running
    case "paused": self = .paused
    case "cancelled": self = .cancelled
    case "finished": self = .finished
    case "waitingForInput": self = .waitingForInput(state: try container.decode(String.self))
    case "waitingUntil":
      let state = try container.decode(String.self)
      let text = try container.decode(String.self)
      guard let time = WallClockTime(rfc3339: text) else {
        throw corrupt(
          "its status waits until \(DisplayText.quoted(name: text)), which is not a UTC timestamp such as 2026-11-27T05:40:00Z."
        )
      }
      self = .waitingUntil(time, state: state)
    case "failed":
      let reason = try container.decode(String.self)
      self = .failed(
        state: container.isAtEnd ? nil : try container.decode(String.self), reason: reason)
    default:
      throw corrupt(
        "its status is \(DisplayText.quoted(name: name)), which is not one of running, paused, waitingForInput, waitingUntil, failed, cancelled, finished."
      )
    }
    guard container.isAtEnd else {
      throw corrupt("its status \(name) holds more than its \(Self.parts(of: name)).")
    }
  }

  /// What a status of `name` holds besides its name, in words.
  private static func parts(of name: String) -> String {
    switch name {
    case "waitingForInput": "state"
    case "waitingUntil": "state and time"
    case "failed": "reason and state"
    default: "name"
    }
  }
}

extension SnapshotPosition {
  /// Writes the position as format 3's array: `[kind, key]`, `["finished", key, decision]`
  /// (`"done"`, `"yes"`, `"no"`, or `"key"` followed by the key), or `["notEntered"]`.
  fileprivate func encodeFormat3(into container: inout any UnkeyedEncodingContainer) throws {
    switch self {
    case .entering(let key):
      try container.encode("entering")
      try container.encode(key)
    case .waitingForInput(let key):
      try container.encode("waitingForInput")
      try container.encode(key)
    case .waitingUntil(let key):
      try container.encode("waitingUntil")
      try container.encode(key)
    case .dispatching(let key):
      try container.encode("dispatching")
      try container.encode(key)
    case .notEntered:
      try container.encode("notEntered")
    case .finished(let key, let decision):
      try container.encode("finished")
      try container.encode(key)
      if decision.isYes {
        try container.encode("yes")
      } else if decision.isNo {
        try container.encode("no")
      } else if let decided = decision.key {
        try container.encode("key")
        if let text = decided as? String {
          try container.encode(text)
        } else if let number = decided as? Int {
          try container.encode(number)
        } else {
          throw EncodingError.invalidValue(
            decided,
            EncodingError.Context(
              codingPath: container.codingPath,
              debugDescription:
                "The run finished with the key \(DisplayText.key(decided)), a \(type(of: decided)): a snapshot keeps a String or an Int key only."
            ))
        }
      } else {
        try container.encode("done")
      }
    }
  }

  /// Reads flow `flow`'s position written by ``encodeFormat3(into:)``: a subflow's or a
  /// map's (`inSubflow`, `inMap`) as ``entering(_:)`` the state, and which of them it is.
  fileprivate static func format3(
    _ container: inout any UnkeyedDecodingContainer, flow: Int32,
    corrupt: (String) -> DecodingError
  ) throws -> (SnapshotPosition, inSubflow: Bool, inMap: Bool) {
    let kind = try container.decode(String.self)
    var read: (SnapshotPosition, inSubflow: Bool, inMap: Bool)
    if kind == "notEntered" {
      read = (.notEntered, false, false)
    } else {
      let key = try container.decode(String.self)
      switch kind {
      case "entering": read = (.entering(key), false, false)
      case "waitingForInput": read = (.waitingForInput(key), false, false)
      case "waitingUntil": read = (.waitingUntil(key), false, false)
      case "dispatching": read = (.dispatching(key), false, false)
      case "inSubflow": read = (.entering(key), true, false)
      case "inMap": read = (.entering(key), false, true)
      case "finished":
        let decision: Decision
        switch try container.decode(String.self) {
        case "done": decision = .done
        case "yes": decision = .yes
        case "no": decision = .no
        case "key":
          switch try container.decode(SnapshotValue.self) {
          case .string(let text): decision = .key(text)
          case .int(let number) where Int(exactly: number) != nil: decision = .key(Int(number))
          case .null, .bool, .int, .double, .array, .object:
            throw corrupt(
              "flow \(flow) finished with a key that is neither a string nor an integer.")
          }
        case let other:
          throw corrupt(
            "flow \(flow) finished deciding \(DisplayText.quoted(name: other)); a decision is \"done\", \"yes\", \"no\" or \"key\" and the key."
          )
        }
        read = (.finished(key, decision), false, false)
      default:
        throw corrupt(
          "flow \(flow)'s position is \(DisplayText.quoted(name: kind)), not one of \"entering\", \"waitingForInput\", \"waitingUntil\", \"dispatching\", \"inSubflow\", \"inMap\", \"finished\" or \"notEntered\"."
        )
      }
    }
    guard container.isAtEnd else {
      throw corrupt("flow \(flow)'s position holds more than its kind, state and decision.")
    }
    return read
  }
}
