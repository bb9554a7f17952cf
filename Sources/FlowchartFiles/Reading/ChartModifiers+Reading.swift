import Flowchart

/// A scalar value of a modifier's field, as either syntax gives it: JSON numbers and
/// strings, XML attribute text.
enum ModifierScalar {
  case number(Double)
  case string(String)
  /// A JSON value of another type, by its type's name.
  case other(String)
}

/// Reads and checks a modifier's fields, whichever syntax they were written in. Durations
/// are seconds; every wrong value is a located problem naming the state.
struct ModifierFieldReader {
  /// `"name"` in JSON, `name` in XML: how a message shows a field.
  let quote: (String) -> String
  var problems: ProblemList

  /// The most seconds a duration may have (about 31 years): more overflows `Duration`'s
  /// arithmetic in backoffs.
  static var maximumSeconds: Double { 1e9 }

  static let retryFields = [
    "count", "backoff", "delay", "initial", "multiplier", "maximum", "jitter", "seed", "errors",
  ]
  static let catchFields = ["goTo", "errors", "storeAt", "run"]

  func stateText(_ state: String?) -> String {
    state.map { "State '\($0)'" } ?? "The state"
  }

  /// A number from a scalar, or `nil` (and a problem recorded).
  mutating func number(
    _ scalar: ModifierScalar, field: String, state: String?, at location: SourceLocation
  ) -> Double? {
    switch scalar {
    case .number(let value) where value.isFinite: return value
    case .string(let text):
      if let value = Double(text), value.isFinite,
        text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-" || $0 == "+") })
      {
        return value
      }
      problems.malformed(
        "\(stateText(state)) has \(quote(field)) = '\(text.prefix(20))': write a number of seconds, such as 30 or 0.5.",
        at: location, name: state)
    case .number, .other:
      problems.malformed(
        "\(stateText(state)) has a \(quote(field)) that is not a number: write a number of seconds, such as 30 or 0.5.",
        at: location, name: state)
    }
    return nil
  }

  /// A duration in seconds: greater than zero when `positive`, else zero or more.
  mutating func seconds(
    _ scalar: ModifierScalar, field: String, positive: Bool, state: String?,
    at location: SourceLocation
  ) -> Double? {
    guard let value = number(scalar, field: field, state: state, at: location) else { return nil }
    guard positive ? value > 0 : value >= 0, value <= Self.maximumSeconds else {
      let bound = positive ? "greater than zero" : "of zero or more"
      problems.malformed(
        "\(stateText(state)) has \(quote(field)) = \(ChartValue.numberText(value)) seconds: give a number of seconds \(bound), at most \(Int(Self.maximumSeconds)).",
        at: location, name: state)
      return nil
    }
    return value
  }

  /// A whole number from `minimum` to `maximum`.
  mutating func whole(
    _ scalar: ModifierScalar, field: String, minimum: Double, maximum: Double, state: String?,
    at location: SourceLocation
  ) -> Double? {
    var value: Double?
    switch scalar {
    case .number(let number): value = number
    case .string(let text):
      if text.count <= 20, !text.isEmpty,
        text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "-") })
      {
        value = Double(text)
      }
    case .other: break
    }
    guard let value, value.isFinite, value == value.rounded(), value >= minimum,
      value <= maximum
    else {
      problems.malformed(
        "\(stateText(state)) has a \(quote(field)) that is not a whole number from \(Int(minimum)) to \(Int(maximum)): fix it.",
        at: location, name: state)
      return nil
    }
    return value
  }

  mutating func string(
    _ scalar: ModifierScalar, field: String, state: String?, at location: SourceLocation
  ) -> String? {
    if case .string(let text) = scalar { return text }
    problems.malformed(
      "\(stateText(state)) has a \(quote(field)) that is not a string: write a name in a string.",
      at: location, name: state)
    return nil
  }

  /// A retry rule from its fields (already checked to be among ``retryFields``).
  mutating func retry(
    _ fields: [String: (ModifierScalar, SourceLocation)], state: String?,
    at location: SourceLocation
  ) -> ChartRetry? {
    guard let (countValue, countLocation) = fields["count"] else {
      problems.malformed(
        "\(stateText(state)) has a retry without \(quote("count")): say how many times to retry, 0 or more.",
        at: location, name: state)
      return nil
    }
    guard
      let count = whole(
        countValue, field: "count", minimum: 0, maximum: Double(Int32.max), state: state,
        at: countLocation)
    else { return nil }
    var isValid = true
    func seconds(_ field: String, positive: Bool = false) -> Double? {
      guard let (value, location) = fields[field] else { return nil }
      let parsed = self.seconds(
        value, field: field, positive: positive, state: state, at: location)
      if parsed == nil { isValid = false }
      return parsed
    }
    let kind =
      fields["backoff"].flatMap { string($0.0, field: "backoff", state: state, at: $0.1) }
      ?? "immediate"
    var backoff = ChartBackoff()
    let allowed: Set<String>
    switch kind {
    case "immediate":
      allowed = []
    case "fixed":
      allowed = ["delay"]
      guard let delay = seconds("delay") else {
        if isValid {
          problems.malformed(
            "\(stateText(state)) has a fixed backoff without \(quote("delay")): give the seconds to wait before each retry.",
            at: location, name: state)
        }
        return nil
      }
      backoff.schedule = .fixed(delay: delay)
    case "exponential":
      allowed = ["initial", "multiplier", "maximum"]
      let initial = seconds("initial")
      let maximum = seconds("maximum")
      var multiplier = 2.0
      if let (value, at) = fields["multiplier"] {
        if let parsed = number(value, field: "multiplier", state: state, at: at),
          parsed >= 1, parsed <= 1e6
        {
          multiplier = parsed
        } else {
          problems.malformed(
            "\(stateText(state)) has a backoff \(quote("multiplier")) that is not a number from 1 to 1000000: fix it.",
            at: at, name: state)
          isValid = false
        }
      }
      guard isValid else { return nil }
      guard let initial, let maximum else {
        problems.malformed(
          "\(stateText(state)) has an exponential backoff without \(quote("initial")) and \(quote("maximum")): give both, in seconds.",
          at: location, name: state)
        return nil
      }
      backoff.schedule = .exponential(initial: initial, multiplier: multiplier, maximum: maximum)
    default:
      problems.malformed(
        "\(stateText(state)) has \(quote("backoff")) = '\(kind.prefix(20))': write immediate, fixed or exponential.",
        at: fields["backoff"]?.1 ?? location, name: state)
      return nil
    }
    for field in ["delay", "initial", "multiplier", "maximum"]
    where fields[field] != nil && !allowed.contains(field) {
      problems.malformed(
        "\(stateText(state)) has \(quote(field)) in a retry whose backoff is \(kind): remove it, or write the backoff that takes it.",
        at: fields[field]!.1, name: state)
      isValid = false
    }
    if let (value, at) = fields["jitter"] {
      switch string(value, field: "jitter", state: state, at: at) {
      case "full": backoff.jitter = .full
      case "equal": backoff.jitter = .equal
      case let text?:
        problems.malformed(
          "\(stateText(state)) has \(quote("jitter")) = '\(text.prefix(20))': write full or equal.",
          at: at, name: state)
        isValid = false
      case nil: isValid = false
      }
    }
    if let (value, at) = fields["seed"] {
      if backoff.jitter == nil {
        problems.malformed(
          "\(stateText(state)) has a retry \(quote("seed")) without \(quote("jitter")): add the jitter it seeds, or remove it.",
          at: at, name: state)
        isValid = false
      } else if let seed = whole(
        value, field: "seed", minimum: 0, maximum: 9_007_199_254_740_992, state: state, at: at)
      {
        backoff.seed = UInt64(seed)
      } else {
        isValid = false
      }
    }
    var errors: String?
    if let (value, at) = fields["errors"] {
      errors = string(value, field: "errors", state: state, at: at)
      if errors == nil { isValid = false }
    }
    guard isValid else { return nil }
    return ChartRetry(count: Int(count), backoff: backoff, errors: errors, at: location)
  }

  /// A catch route from its fields (already checked to be among ``catchFields``).
  mutating func `catch`(
    _ fields: [String: (ModifierScalar, SourceLocation)], state: String?,
    at location: SourceLocation
  ) -> ChartCatch? {
    var values: [String: String] = [:]
    for (field, (value, at)) in fields {
      guard let text = string(value, field: field, state: state, at: at) else { return nil }
      values[field] = text
    }
    guard let target = values["goTo"] else {
      problems.malformed(
        "\(stateText(state)) has a catch route without \(quote("goTo")): name the state to go to.",
        at: location, name: state)
      return nil
    }
    if values["storeAt"] != nil, values["run"] != nil {
      problems.malformed(
        "\(stateText(state)) has a catch route with both \(quote("storeAt")) and \(quote("run")): keep one.",
        at: location, name: state)
      return nil
    }
    return ChartCatch(
      target: target, errors: values["errors"], storeAt: values["storeAt"],
      handler: values["run"], at: location)
  }
}

extension JSONChartBuilder {
  mutating func withFields<T>(_ body: (inout ModifierFieldReader) -> T) -> T {
    var reader = ModifierFieldReader(quote: { "\"\($0)\"" }, problems: problems)
    let result = body(&reader)
    problems = reader.problems
    return result
  }

  static func scalar(_ node: JSONNode) -> ModifierScalar {
    switch node.kind {
    case .number(let value): .number(value)
    case .string(let text): .string(text)
    default: .other(node.typeName)
    }
  }

  /// `"timeout": 30`: seconds, more than zero.
  mutating func timeout(_ node: JSONNode, state: String?) -> Double? {
    if case .string = node.kind {
      problems.malformed(
        "\(state.map { "State '\($0)'" } ?? "The state") has a \"timeout\" in a string: write the seconds as a number, such as 30 or 0.5.",
        at: node.location, name: state)
      return nil
    }
    return withFields { reader in
      reader.seconds(
        Self.scalar(node), field: "timeout", positive: true, state: state, at: node.location)
    }
  }

  /// The scalar fields of an object, each among `allowed`.
  mutating func scalarFields(_ node: JSONNode, allowed: [String], what: String)
    -> [String: (ModifierScalar, SourceLocation)]?
  {
    let listed = allowed.map { "\"\($0)\"" }.joined(separator: ", ")
    guard
      let members = object(
        node,
        "\(what.prefix(1).uppercased() + what.dropFirst()) is an object with the keys \(listed)",
        keys: allowed, in: what, listed: listed)
    else { return nil }
    var fields: [String: (ModifierScalar, SourceLocation)] = [:]
    for member in members {
      if member.key == "seed" || member.key == "count", case .string = member.value.kind {
        fields[member.key] = (.other("a string"), member.value.location)
      } else {
        fields[member.key] = (Self.scalar(member.value), member.value.location)
      }
    }
    return fields
  }

  /// `"retry": {"count": 3, "backoff": "fixed", "delay": 1, …}`.
  mutating func retry(_ node: JSONNode, state: String?) -> ChartRetry? {
    guard
      let fields = scalarFields(
        node, allowed: ModifierFieldReader.retryFields, what: "a retry")
    else { return nil }
    // In JSON, seconds are numbers, not strings.
    for field in ["delay", "initial", "multiplier", "maximum"] {
      if case .string? = fields[field]?.0 {
        problems.malformed(
          "\(state.map { "State '\($0)'" } ?? "The state") has a \"\(field)\" in a string: write it as a number.",
          at: fields[field]!.1, name: state)
        return nil
      }
    }
    return withFields { $0.retry(fields, state: state, at: node.location) }
  }

  /// `"catch": [{"goTo": "Report", "errors": "timeout", "storeAt": "error"}, …]`.
  mutating func catches(_ node: JSONNode, state: String?) -> [ChartCatch] {
    guard case .array(let elements) = node.kind else {
      problems.malformed(
        "\"catch\" is an array of {\"goTo\": …} objects, not \(node.typeName).",
        at: node.location)
      return []
    }
    return elements.compactMap { element in
      guard
        let fields = scalarFields(
          element, allowed: ModifierFieldReader.catchFields, what: "a catch route")
      else { return nil }
      return withFields { $0.catch(fields, state: state, at: element.location) }
    }
  }
}

extension XMLChartBuilder {
  /// The element without its modifiers (its `timeout` attribute, its `<retry>` and
  /// `<catch>` children), and the modifiers it declares.
  mutating func splitModifiers(_ element: XMLElementNode) -> (XMLElementNode, ChartModifiers) {
    // Most states have no modifiers: the element is then its own bare statement, not copied
    // (its attributes and children) to take nothing out of it.
    guard
      element.attributes.keys.contains(where: { $0 == "timeout" })
        || element.children.contains(where: { $0.name == "retry" || $0.name == "catch" })
    else { return (element, ChartModifiers()) }
    var bare = element
    var modifiers = ChartModifiers()
    let state = element.attributes["name"]
    var reader = ModifierFieldReader(quote: { $0 }, problems: problems)
    defer { problems = reader.problems }
    if let text = bare.attributes.removeValue(forKey: "timeout") {
      modifiers.timeout = reader.seconds(
        .string(text), field: "timeout", positive: true, state: state, at: element.location)
    }
    bare.children = []
    for child in element.children {
      switch child.name {
      case "retry", "catch":
        let allowed =
          child.name == "retry" ? ModifierFieldReader.retryFields : ModifierFieldReader.catchFields
        problems = reader.problems
        check(child, attributes: allowed, text: false, children: false)
        reader.problems = problems
        var fields: [String: (ModifierScalar, SourceLocation)] = [:]
        for (name, value) in child.attributes where allowed.contains(name) {
          fields[name] = (.string(value), child.location)
        }
        if child.name == "retry" {
          if modifiers.retry != nil {
            reader.problems.malformed(
              "\(reader.stateText(state)) has a second <retry>: keep one.", at: child.location,
              name: state)
          } else {
            modifiers.retry = reader.retry(fields, state: state, at: child.location)
          }
        } else if let route = reader.catch(fields, state: state, at: child.location) {
          modifiers.catches.append(route)
        }
      default:
        bare.children.append(child)
      }
    }
    return (bare, modifiers)
  }
}
