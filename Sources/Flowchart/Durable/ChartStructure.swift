// Chart versions: a stable key for every state, the shape a snapshot remembers of each
// position it holds, and the chart's structural fingerprint.
//
// A state's position key is the names of the states it is nested in, from the top level
// down, then its own name, joined with "/": "Review/Approve". Names need be unique only where
// a `GoTo` refers to them, so where a name repeats among the states of one parent, each of
// them takes its ordinal among those: "Notify#2" (from 1; a name that does not repeat has
// none). A "/", "#" or "\" inside a name is escaped with "\". Keys follow the declaration
// (states are numbered in pre-order, each declaration counting the states nested in it),
// not the numbering, so a state added elsewhere leaves every other key as it was.
//
// The fingerprint is FNV-1a (64 bits) over one line per state, in order: its key, its kind,
// whether it is final, and its exits with their targets' keys. Not Swift's `Hasher`, which
// is seeded per process: a fingerprint must mean the same in every process.

/// The structure of a chart as snapshots see it.
struct ChartStructure: Sendable {
  /// Each state's position key, by state number.
  let keys: [String]
  /// The state numbered by each key.
  let states: [String: Int32]
  /// Each state's shape, by state number.
  let shapes: [StateShape]
  /// The chart's structural fingerprint: 16 hexadecimal digits.
  let fingerprint: String

  init<Context>(_ graph: Graph<Context>) {
    let count = graph.records.count
    var parents = [Int32](repeating: -1, count: count)
    // Pre-order: the states nested in state `i` are `i + 1 ..< i + stateCount`.
    var open: [(state: Int32, end: Int)] = []
    for index in 0..<count {
      while let last = open.last, index >= last.end { open.removeLast() }
      parents[index] = open.last?.state ?? -1
      let nested = Int(graph.records[index].declaration.stateCount)
      open.append((Int32(index), index + max(nested, 1)))
    }
    // How many siblings share each name, and each state's ordinal among them.
    var seen: [Int32: [String: Int]] = [:]
    var ordinals = [Int](repeating: 0, count: count)
    for index in 0..<count {
      let name = graph.records[index].name
      let number = (seen[parents[index], default: [:]][name] ?? 0) + 1
      seen[parents[index], default: [:]][name] = number
      ordinals[index] = number
    }
    var keys = [String](repeating: "", count: count)
    for index in 0..<count {
      let name = graph.records[index].name
      var segment = Self.escaped(name)
      if seen[parents[index]]?[name] ?? 1 > 1 { segment += "#\(ordinals[index])" }
      let parent = Int(parents[index])
      keys[index] = parent >= 0 ? keys[parent] + "/" + segment : segment
    }
    var states: [String: Int32] = [:]
    for (index, key) in keys.enumerated() { states[key] = Int32(index) }
    var shapes: [StateShape] = []
    shapes.reserveCapacity(count)
    for index in 0..<count {
      let record = graph.records[index]
      let exits = graph.storedExits(of: index).map { exit in
        let label: String =
          switch exit.label {
          case .next: "next"
          case .yes: "yes"
          case .no: "no"
          case .default: "default"
          case .branch(let branch): "branch \(branch + 1)"
          case .key(let key): "key \(graph.keyLabels[Int(key)])"
          }
        return "\(label) → \(keys[Int(exit.target)])"
      }
      shapes.append(
        StateShape(kind: record.kind.description, isFinal: record.isFinal, exits: exits))
    }
    self.keys = keys
    self.states = states
    self.shapes = shapes
    var hash = FNV1a()
    for (key, shape) in zip(keys, shapes) {
      hash.add(key)
      hash.add("|\(shape.kind)|\(shape.isFinal ? "final" : "")|")
      hash.add(shape.exits.joined(separator: ","))
      hash.add("\n")
    }
    fingerprint = hash.hex
  }

  private static func escaped(_ name: String) -> String {
    guard name.contains(where: { $0 == "/" || $0 == "#" || $0 == "\\" }) else { return name }
    var escaped = ""
    for character in name {
      if character == "/" || character == "#" || character == "\\" { escaped.append("\\") }
      escaped.append(character)
    }
    return escaped
  }
}

/// What a snapshot remembers of a state it holds a position at, to tell whether a changed
/// chart still fits: its kind, its finality and its exits (with their targets' keys).
struct StateShape: Hashable, Sendable, Codable {
  var kind: String
  var isFinal: Bool
  var exits: [String]

  enum CodingKeys: String, CodingKey {
    case kind
    case isFinal = "final"
    case exits
  }
}

/// The 64-bit FNV-1a hash, over UTF-8.
struct FNV1a {
  private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

  mutating func add(_ text: String) {
    for byte in text.utf8 {
      value ^= UInt64(byte)
      value = value &* 0x0000_0100_0000_01b3
    }
  }

  /// The hash as 16 lowercase hexadecimal digits.
  var hex: String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }
}

extension Graph {
  /// The chart's structure, made once per graph on first use (a snapshot or a resume asks
  /// for it each time), then shared.
  var structure: ChartStructure {
    if let made = structureCache.withLock({ $0 }) { return made }
    // Made outside the lock: two threads may both make it, and keep the same.
    let made = ChartStructure(self)
    structureCache.withLock { $0 = $0 ?? made }
    return made
  }
}

extension Flowchart {
  /// The chart's structural fingerprint: 16 hexadecimal digits computed from its states,
  /// their kinds, position keys and exits, not from their code. The same in every process
  /// and on every platform; a ``RunSnapshot`` records it, so that resuming can tell
  /// whether the chart changed (see ``start(resuming:chart:migrating:clock:isPaused:isLogged:observer:isolation:)``).
  public var structuralFingerprint: String { graph.structure.fingerprint }

  /// The position key of every state, by ``StateID``: the names of the states it is nested
  /// in, from the top level down, then its own, joined with `/` (`"Review/Approve"`), with
  /// an ordinal where a name repeats among the states of one parent (`"Notify#2"`). What a
  /// ``RunSnapshot`` names its positions by, and what a migration maps.
  public var positionKeys: [String] { graph.structure.keys }
}
