import Flowchart

// The XML elements about the data and the chart's ends: a value's type, a condition's
// built-in tests, and the chart's outcomes.

extension XMLChartBuilder {
  /// `<outcomes mapsEveryEnd="…">` with its `<outcome value="…" state="…"/>` rules.
  mutating func outcomes(_ element: XMLElementNode) -> ChartOutcomes {
    check(element, attributes: ["mapsEveryEnd"], text: false)
    var outcomes = ChartOutcomes(rules: [], at: element.location)
    outcomes.mapsEveryEnd = flag("mapsEveryEnd", of: element)
    for child in element.children {
      guard child.name == "outcome" else {
        problems.malformed(
          "<outcomes> holds <\(child.name)>: it holds only <outcome> elements.", at: child.location)
        continue
      }
      check(
        child, attributes: ["value", "state", "decision", "key"], text: false, children: false)
      guard let value = required("value", of: child), let state = required("state", of: child)
      else { continue }
      var decision: ChartDecision?
      switch (child.attributes["decision"], child.attributes["key"]) {
      case (nil, nil): break
      case (nil, let key?): decision = .key(key)
      case ("yes", nil): decision = .yes
      case ("no", nil): decision = .no
      case ("done", nil): decision = .done
      case (let text?, nil):
        problems.malformed(
          "decision=\"\(text)\" on <outcome>: write yes, no or done, or a multiple condition's key=\"…\".",
          at: child.location)
        continue
      case (.some, .some):
        problems.malformed(
          "<outcome> has both decision=\"…\" and key=\"…\": keep one.", at: child.location)
        continue
      }
      outcomes.rules.append(
        ChartOutcomeRule(outcome: value, state: state, decision: decision, at: child.location))
    }
    return outcomes
  }

  /// A `true`/`false` attribute, `false` when absent.

  /// The typed value of a `<storeValue>` or a comparison: `value` read as `type`.
  mutating func value(of element: XMLElementNode) -> ChartValue? {
    let text = element.attributes["value"]
    let type = element.attributes["type"] ?? "string"
    if type == "null" {
      if text != nil {
        problems.malformed(
          "<\(element.name)> has type=\"null\" and a value: remove the value.",
          at: element.location)
      }
      return .null
    }
    guard let text else {
      problems.malformed(
        "<\(element.name)> needs the attribute value=\"…\" (or type=\"null\").",
        at: element.location)
      return nil
    }
    switch type {
    case "string":
      return .string(text)
    case "number":
      guard let number = Double(text), number.isFinite, !text.contains(where: \.isWhitespace)
      else {
        problems.malformed(
          "value=\"\(text)\" on <\(element.name)> is not a number.", at: element.location)
        return nil
      }
      return .number(number)
    case "boolean":
      guard text == "true" || text == "false" else {
        problems.malformed(
          "value=\"\(text)\" on <\(element.name)> is not a boolean: write true or false.",
          at: element.location)
        return nil
      }
      return .bool(text == "true")
    case "json":
      do throws(SyntaxError) {
        return try JSONReader.value(Array(text.utf8), path: path)
      } catch {
        problems.malformed(
          "value=\"…\" on <\(element.name)> is not JSON: \(error.message)", at: element.location)
        return nil
      }
    default:
      problems.malformed(
        "type=\"\(type)\" on <\(element.name)>: the types are string, number, boolean, null and json.",
        at: element.location)
      return nil
    }
  }

  mutating func test(_ element: XMLElementNode, depth: Int) -> ChartTest? {
    guard depth < XMLTreeReader.maximumDepth else { return nil }
    let at = element.location
    switch element.name {
    case "equal", "less", "greater":
      check(element, attributes: ["path", "value", "type"], text: false, children: false)
      guard let path = required("path", of: element), let value = value(of: element) else {
        return nil
      }
      return ChartTest(ChartVocabulary.comparison(element.name, path: path, value: value), at: at)
    case "present":
      check(element, attributes: ["path"], text: false, children: false)
      guard let path = required("path", of: element) else { return nil }
      return ChartTest(.present(path: path), at: at)
    case "matches":
      check(element, attributes: ["path", "pattern"], text: false, children: false)
      guard let path = required("path", of: element),
        let pattern = required("pattern", of: element)
      else { return nil }
      return ChartTest(.matches(path: path, pattern: pattern), at: at)
    case "all", "any", "not":
      check(element, attributes: [], text: false)
      var tests: [ChartTest] = []
      var complete = true
      for child in element.children {
        guard Self.testElements.contains(child.name) else {
          problems.malformed(
            "<\(element.name)> holds <\(child.name)>: it holds tests (\(Self.testElements.joined(separator: ", ")))\(Suggestions.hint(for: child.name, among: Self.testElements, quote: { "<\($0)>" })).",
            at: child.location)
          complete = false
          continue
        }
        if let test = test(child, depth: depth + 1) { tests.append(test) } else { complete = false }
      }
      guard complete else { return nil }
      switch element.name {
      case "all": return ChartTest(.all(tests), at: at)
      case "any": return ChartTest(.any(tests), at: at)
      default:
        guard tests.count == 1 else {
          problems.malformed(
            "<not> holds \(tests.count) tests: it holds exactly one.", at: at)
          return nil
        }
        return ChartTest(.not(tests[0]), at: at)
      }
    default:
      problems.unknown(
        element.name,
        "Unknown test <\(element.name)>: the tests are \(Self.testElements.joined(separator: ", "))",
        among: Self.testElements, quote: { "<\($0)>" }, at: at)
      return nil
    }
  }
}
