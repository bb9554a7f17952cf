import Flowchart

// The JSON elements about the data and the chart's ends: an action's stores, a condition's
// built-in tests and their comparisons, and the chart's outcomes.

extension JSONChartBuilder {
  mutating func stores(_ node: JSONNode) -> [ChartStore] {
    guard
      let elements = array(
        node, "\"store\" is an array of {\"path\": …, \"value\": …} objects")
    else { return [] }
    return elements.compactMap { element in
      guard
        let members = object(
          element, "A store is an object {\"path\": …, \"value\": …}", keys: ["path", "value"],
          in: "a store", listed: "\"path\" and \"value\"")
      else { return nil }
      var path: String?
      var value: ChartValue?
      for member in members {
        switch member.key {
        case "path": path = string(member.value, what: "\"path\"")
        default: value = member.value.chartValue
        }
      }
      guard let path, let value else {
        problems.malformed(
          "A store needs both \"path\" and \"value\".", at: element.location)
        return nil
      }
      return ChartStore(path: path, value: value, at: element.location)
    }
  }

  static let testKeys = ChartVocabulary.tests

  mutating func test(_ node: JSONNode, depth: Int) -> ChartTest? {
    guard depth < JSONReader.maximumDepth else { return nil }
    guard case .object(let members) = node.kind, members.count == 1, let member = members.first
    else {
      problems.malformed(
        "A test is an object with one key, one of \(Self.testKeys.map { "\"\($0)\"" }.joined(separator: ", ")).",
        at: node.location)
      return nil
    }
    let location = node.location
    switch member.key {
    case "equal", "less", "greater":
      guard let (path, value) = comparison(member.value, what: member.key) else { return nil }
      return ChartTest(
        ChartVocabulary.comparison(member.key, path: path, value: value), at: location)
    case "present":
      guard let path = string(member.value, what: "\"present\"") else { return nil }
      return ChartTest(.present(path: path), at: location)
    case "matches":
      guard
        let fields = object(
          member.value, "\"matches\" takes {\"path\": …, \"pattern\": …}",
          keys: ["path", "pattern"], in: "\"matches\"", listed: "\"path\" and \"pattern\"")
      else { return nil }
      var path: String?
      var pattern: String?
      for field in fields {
        switch field.key {
        case "path": path = string(field.value, what: "\"path\"")
        default: pattern = string(field.value, what: "\"pattern\"")
        }
      }
      guard let path, let pattern else {
        problems.malformed(
          "\"matches\" needs both \"path\" and \"pattern\".", at: member.value.location)
        return nil
      }
      return ChartTest(.matches(path: path, pattern: pattern), at: location)
    case "all", "any":
      guard case .array(let elements) = member.value.kind else {
        problems.malformed(
          "\"\(member.key)\" takes an array of tests, not \(member.value.typeName).",
          at: member.value.location)
        return nil
      }
      let tests = elements.compactMap { test($0, depth: depth + 1) }
      guard tests.count == elements.count else { return nil }
      return ChartTest(member.key == "all" ? .all(tests) : .any(tests), at: location)
    case "not":
      guard let inner = test(member.value, depth: depth + 1) else { return nil }
      return ChartTest(.not(inner), at: location)
    default:
      problems.unknown(
        member.key,
        "Unknown test \"\(member.key)\": the tests are \(Self.testKeys.map { "\"\($0)\"" }.joined(separator: ", "))",
        among: Self.testKeys, at: member.keyLocation)
      return nil
    }
  }

  mutating func comparison(_ node: JSONNode, what: String) -> (String, ChartValue)? {
    guard
      let fields = object(
        node, "\"\(what)\" takes {\"path\": …, \"value\": …}", keys: ["path", "value"],
        in: "\"\(what)\"", listed: "\"path\" and \"value\"")
    else { return nil }
    var path: String?
    var value: ChartValue?
    for field in fields {
      switch field.key {
      case "path": path = string(field.value, what: "\"path\"")
      default: value = field.value.chartValue
      }
    }
    guard let path, let value else {
      problems.malformed("\"\(what)\" needs both \"path\" and \"value\".", at: node.location)
      return nil
    }
    return (path, value)
  }

  /// The chart's outcomes: `{"mapsEveryEnd": …, "rules": [{"outcome": …, "state": …}, …]}`.
  mutating func outcomes(_ node: JSONNode) -> ChartOutcomes? {
    guard
      let members = object(
        node, "\"outcomes\" is an object {\"mapsEveryEnd\": …, \"rules\": […]}",
        keys: ["mapsEveryEnd", "rules"], in: "\"outcomes\"",
        listed: "\"mapsEveryEnd\" and \"rules\"")
    else { return nil }
    var outcomes = ChartOutcomes(rules: [], at: node.location)
    for member in members {
      switch member.key {
      case "mapsEveryEnd": outcomes.mapsEveryEnd = bool(member.value, what: "\"mapsEveryEnd\"")
      default:
        guard
          let elements = array(
            member.value, "\"rules\" is an array of {\"outcome\": …, \"state\": …} objects")
        else { continue }
        outcomes.rules = elements.compactMap { outcomeRule($0) }
      }
    }
    return outcomes
  }

  mutating func outcomeRule(_ node: JSONNode) -> ChartOutcomeRule? {
    guard
      let members = object(
        node,
        "An outcome rule is {\"outcome\": …, \"state\": …}, with an optional \"decision\" or \"key\"",
        keys: ["outcome", "state", "decision", "key"], in: "an outcome rule",
        listed: "\"outcome\", \"state\", \"decision\" and \"key\"")
    else { return nil }
    var outcome: String?
    var state: String?
    var decision: ChartDecision?
    for member in members {
      switch member.key {
      case "outcome": outcome = string(member.value, what: "\"outcome\"")
      case "state": state = string(member.value, what: "\"state\"")
      case "key":
        if decision != nil {
          problems.malformed(
            "An outcome rule has both \"decision\" and \"key\": keep one.",
            at: member.keyLocation)
        }
        decision = string(member.value, what: "\"key\"").map { .key($0) }
      case "decision":
        if decision != nil {
          problems.malformed(
            "An outcome rule has both \"decision\" and \"key\": keep one.",
            at: member.keyLocation)
        }
        switch string(member.value, what: "\"decision\"") {
        case "yes": decision = .yes
        case "no": decision = .no
        case "done": decision = .done
        case let text?:
          problems.malformed(
            "\"decision\": \"\(text)\" is not a decision: write \"yes\", \"no\" or \"done\", or a multiple condition's \"key\".",
            at: member.value.location)
        case nil: break
        }
      default: break
      }
    }
    guard let outcome, let state else {
      problems.malformed(
        "An outcome rule needs both \"outcome\" and \"state\".", at: node.location)
      return nil
    }
    return ChartOutcomeRule(outcome: outcome, state: state, decision: decision, at: node.location)
  }

}
