import Flowchart

/// Builds a ``ChartFile`` from a parsed JSON document, recording every problem of format.
struct JSONChartBuilder {
  let path: String
  var problems = ProblemList()

  /// The kinds of statement, by the key that names them.
  static let statementKeys = ChartVocabulary.statements

  /// The keys each kind of statement may have besides its own.
  static let allowedKeys: [String: Set<String>] = [
    "action": ["final", "run", "store", "fail", "timeout", "retry", "catch"],
    "condition": ["final", "run", "test", "yes", "no", "timeout", "retry", "catch"],
    "multipleCondition": ["final", "run", "value", "exits", "timeout", "retry", "catch"],
    "dispatch": ["final", "merge", "changes", "maxConcurrency", "join", "branches"],
    "wait": ["final", "run", "storeAt", "timeout", "retry", "catch"],
    "delay": ["final", "seconds", "until", "timeout", "retry", "catch"],
    "subflow": [
      "final", "chart", "context", "mapping", "yes", "no", "exits", "timeout", "retry", "catch",
    ],
    "map": [
      "final", "over", "into", "chart", "states", "maxConcurrency", "toleratedFailures",
      "timeout", "retry", "catch",
    ],
    "goTo": [],
    "include": [],
  ]

  mutating func chart(_ root: JSONNode) -> ChartFile {
    var file = ChartFile(path: path, states: [])
    guard case .object(let members) = root.kind else {
      problems.malformed(
        "A chart file holds a JSON object with a \"flowchart\" array of states, not \(root.typeName).",
        at: root.location)
      return file
    }
    var sawStates = false
    for member in members {
      switch member.key {
      case "flowchart":
        sawStates = true
        file.states = block(member.value, depth: 1, what: "\"flowchart\"")
      case "entryPoints":
        guard let names = array(member.value, "\"entryPoints\" is an array of state names")
        else { continue }
        for name in names {
          if case .string(let text) = name.kind {
            file.entryPoints.append(ChartReference(text, at: name.location))
          } else {
            problems.malformed(
              "An entry point is a state's name in a string, not \(name.typeName).",
              at: name.location)
          }
        }
      case "outcomes":
        file.outcomes = outcomes(member.value)
      case "$schema", "$comment":
        break
      default:
        problems.unknown(
          member.key,
          "Unknown key \"\(member.key)\" in a chart file: the keys are \"flowchart\", \"entryPoints\", \"outcomes\" and \"$schema\"",
          among: ["flowchart", "entryPoints", "outcomes", "$schema"], at: member.keyLocation)
      }
    }
    if !sawStates {
      problems.malformed(
        "The chart file has no \"flowchart\" key: add \"flowchart\": [ … ] with its states.",
        at: root.location)
    }
    return file
  }

  /// A block: an array of statements.
  mutating func block(_ node: JSONNode, depth: Int, what: String) -> [ChartNode] {
    guard let elements = array(node, "\(what) is an array of states") else { return [] }
    guard depth <= maximumStateDepth else {
      problems.statesTooDeep(at: node.location)
      return []
    }
    return elements.compactMap { statement($0, depth: depth) }
  }

  /// A statement with its modifiers (`timeout`, `retry`, `catch`), for the kinds that take
  /// them.
  mutating func statement(_ node: JSONNode, depth: Int) -> ChartNode? {
    guard case .object(let members) = node.kind else { return bareStatement(node, depth: depth) }
    guard var statement = bareStatement(node, depth: depth) else {
      for member in members where Self.statementKeys.contains(member.key) {
        if case .string(let name) = member.value.kind { problems.droppedStates.insert(name) }
      }
      return nil
    }
    switch statement.kind {
    case .goTo, .include, .dispatch: return statement
    case .action, .condition, .multipleCondition, .wait, .subflow, .map, .delay: break
    }
    let name = statement.stateName
    for member in members {
      switch member.key {
      case "timeout": statement.modifiers.timeout = timeout(member.value, state: name)
      case "retry": statement.modifiers.retry = retry(member.value, state: name)
      case "catch": statement.modifiers.catches = catches(member.value, state: name)
      default: break
      }
    }
    return statement
  }

  mutating func bareStatement(_ node: JSONNode, depth: Int) -> ChartNode? {
    guard case .object(let members) = node.kind else {
      problems.malformed(
        "A state is a JSON object such as {\"action\": \"Name\"}, not \(node.typeName).",
        at: node.location)
      return nil
    }
    let kinds = members.filter { Self.statementKeys.contains($0.key) }
    guard let kindMember = kinds.first else {
      // A misspelled kind ("acton") is the likeliest cause: suggest the closest.
      let close = members.lazy.compactMap { member in
        Suggestions.closest(to: member.key, among: Self.statementKeys).map { (member.key, $0) }
      }.first
      let hint = close.map { " (did you mean \"\($0.1)\" for \"\($0.0)\"?)" } ?? ""
      problems.malformed(
        "This object declares no state: give it one of the keys \(Self.statementKeys.map { "\"\($0)\"" }.joined(separator: ", "))\(hint).",
        at: node.location)
      return nil
    }
    if kinds.count > 1 {
      problems.malformed(
        "This object declares both \"\(kindMember.key)\" and \"\(kinds[1].key)\": one object declares one state.",
        at: kinds[1].keyLocation)
    }
    let kind = kindMember.key
    let allowed = Self.allowedKeys[kind] ?? []
    var fields: [String: JSONNode] = [:]
    for member in members where member.key != kind {
      if allowed.contains(member.key) || (member.key == "isFinal" && allowed.contains("final")) {
        fields[member.key] = member.value
      } else if !Self.statementKeys.contains(member.key) && member.key != "$comment" {
        let list = allowed.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
        problems.unknown(
          member.key,
          "Unknown key \"\(member.key)\" for \(article(kind)) \(kind)"
            + (list.isEmpty ? ": it takes no other key" : ": its keys are \(list)"),
          among: allowed.sorted(), at: member.keyLocation)
      }
    }
    guard let name = string(kindMember.value, what: "\"\(kind)\"") else { return nil }
    let isFinal = finalFlag(fields)
    switch kind {
    case "action":
      var stores: [ChartStore] = []
      if let store = fields["store"] { stores = self.stores(store) }
      let action = ChartAction(
        name: name, isFinal: isFinal, handler: optionalString(fields["run"], what: "\"run\""),
        stores: stores, failure: optionalString(fields["fail"], what: "\"fail\""))
      return ChartNode(.action(action), at: node.location)
    case "condition":
      let decision: ChartCondition.Decision
      switch (fields["run"], fields["test"]) {
      case (let run?, nil):
        decision = .handler(string(run, what: "\"run\"") ?? "")
      case (nil, let test?):
        // A test with a problem (recorded) still declares the state, so that its blocks and
        // the names they use are checked too.
        decision = .test(self.test(test, depth: 0) ?? ChartTest(.all([]), at: test.location))
      case (.some, .some):
        problems.alternatives(.conditionDecision, name, both: true, in: .json, at: node.location)
        return nil
      case (nil, nil):
        problems.alternatives(.conditionDecision, name, both: false, in: .json, at: node.location)
        return nil
      }
      let condition = ChartCondition(
        name: name, isFinal: isFinal, decision: decision,
        yes: fields["yes"].map { block($0, depth: depth + 1, what: "\"yes\"") },
        no: fields["no"].map { block($0, depth: depth + 1, what: "\"no\"") })
      return ChartNode(.condition(condition), at: node.location)
    case "multipleCondition":
      let decision: ChartMultipleCondition.Decision
      switch (fields["run"], fields["value"]) {
      case (let run?, nil):
        decision = .handler(string(run, what: "\"run\"") ?? "")
      case (nil, let value?):
        decision = .value(path: string(value, what: "\"value\"") ?? "")
      case (.some, .some):
        problems.alternatives(.keyDecision, name, both: true, in: .json, at: node.location)
        return nil
      case (nil, nil):
        problems.alternatives(.keyDecision, name, both: false, in: .json, at: node.location)
        return nil
      }
      // No exits and an empty list of exits are one thing, as in XML.
      let exits = fields["exits"].map { self.exits($0, depth: depth + 1) }.flatMap {
        $0.isEmpty ? nil : $0
      }
      let condition = ChartMultipleCondition(
        name: name, isFinal: isFinal, decision: decision, exits: exits)
      return ChartNode(.multipleCondition(condition), at: node.location)
    case "dispatch":
      var branches: [ChartBranch] = []
      if let list = fields["branches"] {
        branches = self.branches(list, depth: depth + 1)
      } else {
        problems.malformed(
          "Dispatch '\(name)' has no \"branches\": add \"branches\": [{\"states\": [ … ]}, … ].",
          at: node.location, name: name)
      }
      var join = ChartJoin.all
      if let text = fields["join"].flatMap({ string($0, what: "\"join\"") }) {
        if let parsed = ChartJoin(text: text) {
          join = parsed
        } else {
          problems.malformed(
            "\"join\": \"\(text)\" is not a join policy: write \"all\", \"firstSuccess\", \"toleratingFailures(N)\" or \"quorum(N)\".",
            at: fields["join"]!.location, name: name)
        }
      }
      var changes: ChartChanges?
      if let node = fields["changes"], let text = string(node, what: "\"changes\"") {
        changes = ChartChanges(rawValue: text)
        if changes == nil {
          problems.malformed(
            "\"changes\": \"\(text)\" is not a join of changes: write \"merge\" (each branch's changed keys, the default) or \"discard\" (drop the branches' changes).",
            at: node.location, name: name)
        } else if fields["merge"] != nil {
          problems.malformed(
            "Dispatch '\(name)' has both \"merge\" (a registered merge) and \"changes\": keep one.",
            at: node.location, name: name)
        }
      }
      let dispatch = ChartDispatch(
        name: name, isFinal: isFinal, merge: optionalString(fields["merge"], what: "\"merge\""),
        changes: changes,
        maxConcurrency: count(fields["maxConcurrency"], what: "\"maxConcurrency\"", minimum: 1),
        join: join, branches: branches)
      return ChartNode(.dispatch(dispatch), at: node.location)
    case "wait":
      let input: ChartWait.Input
      switch (fields["run"], fields["storeAt"]) {
      case (let run?, nil):
        input = .handler(string(run, what: "\"run\"") ?? "")
      case (nil, let path?):
        input = .store(path: string(path, what: "\"storeAt\"") ?? "")
      case (.some, .some):
        problems.alternatives(.waitInput, name, both: true, in: .json, at: node.location)
        return nil
      case (nil, nil):
        problems.alternatives(.waitInput, name, both: false, in: .json, at: node.location)
        return nil
      }
      return ChartNode(
        .wait(ChartWait(name: name, isFinal: isFinal, input: input)), at: node.location)
    case "delay":
      let timing: ChartDelay.Timing
      switch (fields["seconds"], fields["until"]) {
      case (let seconds?, nil):
        if case .string = seconds.kind {
          problems.malformed(
            "Delay '\(name)' has \"seconds\" in a string: write the seconds as a number, such as 30 or 259200.",
            at: seconds.location, name: name)
          return nil
        }
        guard
          let value = withFields({
            $0.seconds(
              Self.scalar(seconds), field: "seconds", positive: false, state: name,
              at: seconds.location)
          })
        else { return nil }
        timing = .seconds(value)
      case (nil, let path?):
        guard let path = string(path, what: "\"until\"") else { return nil }
        timing = .until(path: path)
      case (.some, .some), (nil, nil):
        problems.malformed(
          "Delay '\(name)' needs one of \"seconds\" (a number of seconds) or \"until\" (the key of the data that holds an RFC 3339 time, such as \"2026-01-04T00:00:00Z\"), not \(fields["seconds"] == nil ? "neither" : "both").",
          at: node.location, name: name)
        return nil
      }
      return ChartNode(
        .delay(ChartDelay(name: name, isFinal: isFinal, timing: timing)), at: node.location)
    case "subflow":
      guard let chartNode = fields["chart"] else {
        problems.malformed(
          "Subflow '\(name)' has no \"chart\": add \"chart\": \"path/to/chart.json\".",
          at: node.location, name: name)
        return nil
      }
      guard let chart = string(chartNode, what: "\"chart\"") else { return nil }
      var exits = ChartSubflow.Exits.none
      switch (fields["yes"] ?? fields["no"], fields["exits"]) {
      case (_?, nil):
        exits = .yesNo(
          yes: fields["yes"].map { block($0, depth: depth + 1, what: "\"yes\"") } ?? [],
          no: fields["no"].map { block($0, depth: depth + 1, what: "\"no\"") } ?? [])
      case (nil, let list?):
        let parsed = self.exits(list, depth: depth + 1)
        exits = parsed.isEmpty ? .none : .keyed(parsed)
      case (_?, _?):
        problems.malformed(
          "Subflow '\(name)' has both \"yes\"/\"no\" and \"exits\": keep one.",
          at: node.location, name: name)
        return nil
      case (nil, nil):
        break
      }
      if fields["context"] != nil, fields["mapping"] != nil {
        problems.alternatives(.subflowContext, name, both: true, in: .json, at: node.location)
        return nil
      }
      let subflow = ChartSubflow(
        name: name, isFinal: isFinal, chart: chart,
        contextPath: optionalString(fields["context"], what: "\"context\""),
        mapping: optionalString(fields["mapping"], what: "\"mapping\""), exits: exits)
      return ChartNode(.subflow(subflow), at: node.location)
    case "map":
      let source: ChartSource
      switch (fields["chart"], fields["states"]) {
      case (let chart?, nil):
        source = .file(string(chart, what: "\"chart\"") ?? "")
      case (nil, let states?):
        source = .states(block(states, depth: depth + 1, what: "\"states\""))
      case (.some, .some):
        problems.alternatives(.mapChart, name, both: true, in: .json, at: node.location)
        return nil
      case (nil, nil):
        problems.alternatives(.mapChart, name, both: false, in: .json, at: node.location)
        return nil
      }
      guard let overNode = fields["over"] else {
        problems.malformed(
          "Map '\(name)' has no \"over\": add \"over\": \"path.of.the.array\".",
          at: node.location, name: name)
        return nil
      }
      let map = ChartMap(
        name: name, isFinal: isFinal, over: string(overNode, what: "\"over\"") ?? "",
        into: optionalString(fields["into"], what: "\"into\""), chart: source,
        maxConcurrency: count(fields["maxConcurrency"], what: "\"maxConcurrency\"", minimum: 1),
        toleratedFailures: count(
          fields["toleratedFailures"], what: "\"toleratedFailures\"", minimum: 0) ?? 0)
      return ChartNode(.map(map), at: node.location)
    case "goTo":
      return ChartNode(.goTo(name), at: node.location)
    default:
      return ChartNode(.include(name), at: node.location)
    }
  }

  mutating func exits(_ node: JSONNode, depth: Int) -> [ChartExit] {
    guard
      let elements = array(
        node,
        "\"exits\" is an array of {\"case\": …, \"states\": […]} and {\"default\": […]} objects")
    else { return [] }
    return elements.compactMap { element in
      guard
        let members = object(
          element, "An exit is {\"case\": \"key\", \"states\": […]} or {\"default\": […]}",
          keys: ["case", "states", "default"], in: "an exit",
          listed: "\"case\" and \"states\", or \"default\"")
      else { return nil }
      var key: String?
      var states: [ChartNode]?
      var isDefault = false
      for member in members {
        switch member.key {
        case "case": key = string(member.value, what: "\"case\"")
        case "states": states = block(member.value, depth: depth, what: "\"states\"")
        default:
          isDefault = true
          states = block(member.value, depth: depth, what: "\"default\"")
        }
      }
      if isDefault {
        guard key == nil, members.count == 1, case .object(let written) = element.kind,
          written.count == 1
        else {
          problems.malformed(
            "A default exit is {\"default\": […]} alone, without \"case\" or \"states\".",
            at: element.location)
          return nil
        }
        return ChartExit(key: nil, states: states ?? [], at: element.location)
      }
      guard let key else {
        problems.malformed(
          "An exit needs \"case\" (its key) or is {\"default\": […]}.", at: element.location)
        return nil
      }
      return ChartExit(key: key, states: states ?? [], at: element.location)
    }
  }

  mutating func branches(_ node: JSONNode, depth: Int) -> [ChartBranch] {
    guard
      let elements = array(
        node, "\"branches\" is an array of {\"name\": …, \"states\": […]} objects")
    else { return [] }
    return elements.compactMap { element in
      guard
        let members = object(
          element, "A branch is {\"states\": […]}, with an optional \"name\"",
          keys: ["name", "after", "states"], in: "a branch",
          listed: "\"name\", \"after\" and \"states\"")
      else { return nil }
      var name: String?
      var after: [String] = []
      var states: [ChartNode] = []
      for member in members {
        switch member.key {
        case "name": name = string(member.value, what: "\"name\"")
        case "after": after = strings(member.value, what: "\"after\"")
        default: states = block(member.value, depth: depth, what: "\"states\"")
        }
      }
      return ChartBranch(name: name, after: after, states: states, at: element.location)
    }
  }

  mutating func string(_ node: JSONNode, what: String) -> String? {
    if case .string(let text) = node.kind { return text }
    problems.malformed("\(what) takes a string, not \(node.typeName).", at: node.location)
    return nil
  }

  /// An array of strings.
  mutating func strings(_ node: JSONNode, what: String) -> [String] {
    guard let elements = array(node, "\(what) is an array of names") else { return [] }
    return elements.compactMap { string($0, what: "A name in \(what)") }
  }

  /// A whole number of at least `minimum`, or `nil` when the key is absent (or the value is
  /// wrong, which is recorded).
  mutating func count(_ node: JSONNode?, what: String, minimum: Int) -> Int? {
    guard let node else { return nil }
    guard case .number(let value) = node.kind, value == value.rounded(), value >= Double(minimum),
      value <= Double(Int32.max)
    else {
      problems.malformed(
        "\(what) takes a whole number of at least \(minimum), not \(node.typeName == "a number" ? "this number" : node.typeName).",
        at: node.location)
      return nil
    }
    return Int(value)
  }

  mutating func optionalString(_ node: JSONNode?, what: String) -> String? {
    guard let node else { return nil }
    return string(node, what: what)
  }

  mutating func bool(_ node: JSONNode?, what: String) -> Bool {
    guard let node else { return false }
    if case .bool(let value) = node.kind { return value }
    problems.malformed("\(what) takes true or false, not \(node.typeName).", at: node.location)
    return false
  }

  /// Whether a state is final: `"final"`, or `"isFinal"` as Swift spells it; both at once
  /// must agree.
  mutating func finalFlag(_ fields: [String: JSONNode]) -> Bool {
    let final = fields["final"].map { bool($0, what: "\"final\"") }
    guard let node = fields["isFinal"] else { return final ?? false }
    let isFinal = bool(node, what: "\"isFinal\"")
    if let final, final != isFinal {
      problems.malformed(
        "\"final\": \(final) and \"isFinal\": \(isFinal) disagree: they are the same key, so write one of them.",
        at: node.location)
    }
    return isFinal
  }
}

/// `a` or `an`, for a kind's name.
func article(_ word: String) -> String {
  word.first.map { "aeiou".contains($0) } == true ? "an" : "a"
}
