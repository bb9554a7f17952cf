import Flowchart
import FlowchartFiles

/// Draws random chart files from a seed: every kind of statement, nested blocks, built-in
/// tests and stores, and names with characters both syntaxes must escape.
struct RandomChart {
  var generator: SeededGenerator
  var stateCount = 0
  var names: [String] = []

  init(seed: UInt64) {
    generator = SeededGenerator(seed: seed)
  }

  /// Names that need escaping in JSON, XML or both.
  static let awkward = [
    "Plain", "Quote \"q\"", "Angle <a> & b", "Back\\slash", "Unicode é ✓ 🚀", "Colon: yes",
    "Apostrophe's",
  ]

  /// A new location for each node, as a file would give: the compiler tells references
  /// apart by their locations.
  var line = 0
  mutating func location() -> SourceLocation {
    line += 1
    return SourceLocation(fileID: "random", line: line, column: 1)
  }

  mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &generator) }
  mutating func chance(_ percent: Int) -> Bool { int(1...100) <= percent }

  mutating func name() -> String {
    stateCount += 1
    let base = Self.awkward[int(0...Self.awkward.count - 1)]
    let name = "\(base) \(stateCount)"
    names.append(name)
    return name
  }

  /// String values XML cannot hold as they are (control characters, noncharacters), which
  /// the XML writer writes as JSON strings.
  static let unruly = [
    "bell \u{1}", "back\u{8}space", "not a character \u{FFFE}", "\u{FFFF}", "nul \u{0} end",
    "escape \u{1B}[31m", "tab\tand\nline\r",
  ]

  mutating func value() -> ChartValue {
    switch int(0...8) {
    case 7: return .string(Self.unruly[int(0...Self.unruly.count - 1)])
    case 8: return .array([.string(Self.unruly[int(0...Self.unruly.count - 1)]), .null])
    case 0: return .null
    case 1: return .bool(chance(50))
    case 2: return .number(Double(int(-1000...1000)))
    case 3: return .number(Double(int(-1000...1000)) / 8)
    case 4: return .string(Self.awkward[int(0...Self.awkward.count - 1)])
    case 5: return .array([.number(1), .string("x<&>\"")])
    default: return .object(["k": .string("v"), "n": .null])
    }
  }

  mutating func path() -> String {
    ["a", "a.b", "items.0", "answers.plan", "x.y.z"][int(0...4)]
  }

  mutating func test(depth: Int) -> ChartTest {
    let at = location()
    switch int(depth > 2 ? 0...4 : 0...7) {
    case 0: return ChartTest(.equal(path: path(), value: value()), at: at)
    case 1: return ChartTest(.less(path: path(), value: value()), at: at)
    case 2: return ChartTest(.greater(path: path(), value: value()), at: at)
    case 3: return ChartTest(.present(path: path()), at: at)
    case 4: return ChartTest(.matches(path: path(), pattern: "^a[b-c]*\\.d$"), at: at)
    case 5: return ChartTest(.all((0..<int(0...3)).map { _ in test(depth: depth + 1) }), at: at)
    case 6: return ChartTest(.any((0..<int(0...3)).map { _ in test(depth: depth + 1) }), at: at)
    default: return ChartTest(.not(test(depth: depth + 1)), at: at)
    }
  }

  mutating func block(depth: Int) -> [ChartNode] {
    (0..<int(1...3)).map { _ in modified(node(depth: depth)) }
  }

  /// `node`, sometimes with a timeout, a retry and catch routes, when its kind takes them.
  mutating func modified(_ node: ChartNode) -> ChartNode {
    switch node.kind {
    case .goTo, .include, .dispatch: return node
    default: break
    }
    guard chance(30) else { return node }
    var node = node
    if chance(50) { node.modifiers.timeout = [30, 0.5, 0.125, 2][int(0...3)] }
    if chance(50) {
      let schedules: [ChartBackoff.Schedule] = [
        .immediate, .fixed(delay: 0.25), .exponential(initial: 0.1, multiplier: 2, maximum: 5),
        .exponential(initial: 1, multiplier: 1.5, maximum: 10),
      ]
      var backoff = ChartBackoff(schedule: schedules[int(0...3)])
      if chance(30) {
        backoff.jitter = chance(50) ? .full : .equal
        if chance(50) { backoff.seed = UInt64(int(0...1000)) }
      }
      let errors = chance(30) ? ["timeout", "retryable", "failure"][int(0...2)] : nil
      node.modifiers.retry = ChartRetry(
        count: int(0...3), backoff: backoff, errors: errors, at: location())
    }
    for _ in 0..<int(0...2) {
      let target =
        chance(90) && !names.isEmpty ? names[int(0...names.count - 1)] : "Nowhere"
      let store = chance(40)
      node.modifiers.catches.append(
        ChartCatch(
          target: target, errors: chance(30) ? "failure" : nil, storeAt: store ? path() : nil,
          handler: !store && chance(40) ? "note" : nil, at: location()))
    }
    return node
  }

  mutating func node(depth: Int) -> ChartNode {
    let at = location()
    let nested = depth < 3
    switch int(nested ? 0...10 : 0...4) {
    case 0, 1, 2:
      let stores = (0..<int(0...2)).map { _ in ChartStore(path: path(), value: value(), at: at) }
      return ChartNode(
        .action(
          ChartAction(
            name: name(), isFinal: chance(30), handler: chance(50) ? "work" : nil, stores: stores,
            failure: chance(10) ? "Failed <&> \"here\"" : nil)),
        at: at)
    case 3:
      let target = names.isEmpty ? "Nowhere" : names[int(0...names.count - 1)]
      return ChartNode(.goTo(target), at: at)
    case 4:
      let decision: ChartCondition.Decision =
        chance(50) ? .handler("decide") : .test(test(depth: 0))
      return ChartNode(
        .condition(ChartCondition(name: name(), isFinal: true, decision: decision)), at: at)
    case 5, 6:
      let decision: ChartCondition.Decision =
        chance(50) ? .handler("decide") : .test(test(depth: 0))
      let condition = ChartCondition(
        name: name(), isFinal: false, decision: decision,
        yes: chance(80) ? block(depth: depth + 1) : nil,
        no: chance(60) ? (chance(20) ? [] : block(depth: depth + 1)) : nil)
      return ChartNode(.condition(condition), at: at)
    case 7, 8:
      let decision: ChartMultipleCondition.Decision =
        chance(50) ? .handler("choose") : .value(path: path())
      var exits: [ChartExit] = (0..<int(1...3)).map { index in
        ChartExit(
          key: ["a", "b c", "<&>", "\"q\""][index], states: block(depth: depth + 1), at: at)
      }
      if chance(40) {
        exits.insert(
          ChartExit(key: nil, states: block(depth: depth + 1), at: at), at: int(0...exits.count))
      }
      return ChartNode(
        .multipleCondition(
          ChartMultipleCondition(name: name(), isFinal: false, decision: decision, exits: exits)),
        at: at)
    case 10 where chance(33):
      if chance(25) {
        let timing: ChartDelay.Timing =
          chance(50) ? .seconds([0, 0.5, 30, 259_200][int(0...3)]) : .until(path: path())
        return ChartNode(
          .delay(ChartDelay(name: name(), isFinal: chance(20), timing: timing)), at: at)
      }
      let input: ChartWait.Input = chance(50) ? .handler("receive") : .store(path: path())
      return ChartNode(.wait(ChartWait(name: name(), isFinal: chance(20), input: input)), at: at)
    case 10 where chance(50):
      let exits: ChartSubflow.Exits
      switch int(0...2) {
      case 0: exits = .none
      case 1: exits = .yesNo(yes: block(depth: depth + 1), no: block(depth: depth + 1))
      default:
        exits = .keyed([
          ChartExit(key: "Inner end", states: block(depth: depth + 1), at: at),
          ChartExit(key: chance(50) ? nil : "Inner other", states: block(depth: depth + 1), at: at),
        ])
      }
      // The whole context, a path of the data, or a registered mapping.
      let context = int(0...2)
      let subflow = ChartSubflow(
        name: name(), isFinal: chance(20), chart: "inner.json",
        contextPath: context == 1 ? path() : nil, mapping: context == 2 ? "nested" : nil,
        exits: exits)
      return ChartNode(.subflow(subflow), at: at)
    case 10:
      let source: ChartSource =
        chance(50)
        ? .file("inner.json")
        : .states([
          ChartNode(
            .action(ChartAction(name: "Each \(int(1...9))", isFinal: true, handler: "work")),
            at: at)
        ])
      let over = chance(25) ? "collection" : path()
      let map = ChartMap(
        name: name(), isFinal: chance(20), over: over,
        // A registered collection says where its results go: rarely, a mistake.
        into: chance(over == "collection" ? 90 : 50) ? nil : path(),
        chart: source, maxConcurrency: chance(50) ? nil : int(1...4),
        toleratedFailures: chance(50) ? 0 : int(1...3))
      return ChartNode(.map(map), at: at)
    default:
      var branchNames: [String] = []
      let branches = (0..<int(1...3)).map { _ in
        let branchName = chance(70) ? name() : nil
        let after = chance(40) && !branchNames.isEmpty ? [branchNames[0]] : []
        if let branchName { branchNames.append(branchName) }
        return ChartBranch(
          name: branchName, after: after, states: block(depth: depth + 1), at: at)
      }
      let joins: [ChartJoin] = [.all, .firstSuccess, .quorum(1), .toleratingFailures(2)]
      let merge = chance(50) ? "merge" : nil
      let changes: ChartChanges? =
        merge == nil && chance(50) ? ChartChanges.allCases[int(0...1)] : nil
      return ChartNode(
        .dispatch(
          ChartDispatch(
            name: name(), isFinal: chance(20), merge: merge, changes: changes,
            maxConcurrency: chance(50) ? nil : int(1...3), join: joins[int(0...3)],
            branches: branches)),
        at: at)
    }
  }

  /// The chart random subflows and maps run: two final states of the top level.
  static let inner = ChartFile(
    path: "inner.json",
    states: [
      ChartNode(
        .condition(
          ChartCondition(
            name: "Inner end", decision: .test(ChartTest(.present(path: "a"), at: innerAt)),
            yes: [ChartNode(.action(ChartAction(name: "Inner other", isFinal: true)), at: innerAt)]
          )), at: innerAt),
      ChartNode(.action(ChartAction(name: "Inner last", isFinal: true)), at: innerAt),
    ])
  static let innerAt = SourceLocation(fileID: "inner.json", line: 1, column: 1)

  /// A random chart file.
  mutating func file() -> ChartFile {
    let states = block(depth: 1)
    var file = ChartFile(path: "random", states: states, includedFiles: ["inner.json": Self.inner])
    if chance(20), let name = names.last {
      file.entryPoints = [ChartReference(name, at: location())]
    }
    if chance(10) {
      let finals = states.compactMap(\.stateName)
      let rules = (0..<int(0...2)).map { index in
        ChartOutcomeRule(
          outcome: "outcome \(index)",
          state: finals.isEmpty ? "Nowhere" : finals[int(0...finals.count - 1)],
          decision: [nil, .yes, .no, .done, .key("a")][int(0...4)], at: location())
      }
      file.outcomes = ChartOutcomes(mapsEveryEnd: chance(20), rules: rules, at: location())
    }
    return file
  }
}

/// A registry over `ChartValue` that binds every name the random charts use.
func randomChartHandlers() -> HandlerRegistry<ChartValue> {
  var handlers = HandlerRegistry<ChartValue>()
  handlers["work"] = .action { $0[path: "worked"] = true }
  handlers["decide"] = .condition { $0[path: "a"] != nil }
  handlers["choose"] = .multipleCondition { _ in "a" }
  handlers["merge"] = .merge { _, _ in }
  handlers["receive"] = .input(ChartValue.self) { $0[path: "received"] = $1 }
  handlers["retryable"] = .errors { $0 is ChartFailure }
  handlers["note"] = .catch { context, error in context[path: "error"] = .string("\(error)") }
  handlers["nested"] = .mapping(
    ContextMapping(enter: { $0[path: "nested"] ?? .null }, leave: { $0[path: "nested"] = $1 }))
  handlers["collection"] = .collection(
    over: { context in
      guard case .array(let elements)? = context[path: "items"] else { return [] }
      return elements
    },
    collect: { context, results in context[path: "items"] = .array(results.outputs) })
  return handlers
}
