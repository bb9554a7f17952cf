import Flowchart

extension ChartModifiers {
  /// The modifiers' JSON members, in order: `"timeout": …`, `"retry": {…}`, `"catch": […]`.
  var jsonFields: [String] {
    var fields: [String] = []
    if let timeout { fields.append("\"timeout\": \(ChartValue.numberText(timeout))") }
    if let retry {
      let members = retry.fields.map { name, value in
        "\(TextWriter.quoted(name)): \(value.jsonText)"
      }
      fields.append("\"retry\": {\(members.joined(separator: ", "))}")
    }
    if !catches.isEmpty {
      let routes = catches.map { route in
        "{"
          + route.fields.map { "\(TextWriter.quoted($0)): \(TextWriter.quoted($1))" }
          .joined(separator: ", ") + "}"
      }
      fields.append("\"catch\": [\(routes.joined(separator: ", "))]")
    }
    return fields
  }
}

extension ChartRetry {
  /// The rule's fields, in order, as values.
  var fields: [(String, ChartValue)] {
    var fields: [(String, ChartValue)] = [("count", .number(Double(count)))]
    switch backoff.schedule {
    case .immediate: break
    case .fixed(let delay):
      fields += [("backoff", .string("fixed")), ("delay", .number(delay))]
    case .exponential(let initial, let multiplier, let maximum):
      fields += [
        ("backoff", .string("exponential")), ("initial", .number(initial)),
        ("multiplier", .number(multiplier)), ("maximum", .number(maximum)),
      ]
    }
    switch backoff.jitter {
    case .full?: fields.append(("jitter", .string("full")))
    case .equal?: fields.append(("jitter", .string("equal")))
    case nil: break
    }
    if let seed = backoff.seed { fields.append(("seed", .number(Double(seed)))) }
    if let errors { fields.append(("errors", .string(errors))) }
    return fields
  }
}

extension ChartCatch {
  /// The route's fields, in order.
  var fields: [(String, String)] {
    [("goTo", target)]
      + [("errors", errors), ("storeAt", storeAt), ("run", handler)]
      .compactMap { name, value in value.map { (name, $0) } }
  }
}

extension TextWriter {
  /// A state with modifiers: its text without them, with their members added to its object.
  mutating func jsonModifiedNode(_ node: ChartNode, last: Bool) {
    var bare = node
    bare.modifiers = ChartModifiers()
    var inner = TextWriter(output: "", indent: indent)
    inner.jsonNode(bare, last: last)
    var lines = inner.output.split(separator: "\n", omittingEmptySubsequences: false).map(
      String.init)
    if lines.last == "" { lines.removeLast() }
    let fields = node.modifiers.jsonFields
    let first = lines[0]
    let padding = String(repeating: "  ", count: indent)
    if first == padding + "{" {
      // An object over several lines: the members go first, each on a line.
      lines.insert(contentsOf: fields.map { padding + "  " + $0 + "," }, at: 1)
    } else {
      // An object on one line, `{…}` or `{…},`: the members go before its last brace.
      let end =
        first.hasSuffix(",")
        ? first.index(first.endIndex, offsetBy: -2) : first.index(before: first.endIndex)
      lines[0] = first[..<end] + ", " + fields.joined(separator: ", ") + first[end...]
    }
    for text in lines { output += text + "\n" }
  }

  /// A state with modifiers: its element with a `timeout` attribute, and `<retry>` and
  /// `<catch>` as its first children.
  mutating func xmlModifiedNode(_ node: ChartNode) {
    var bare = node
    bare.modifiers = ChartModifiers()
    var inner = TextWriter(output: "", indent: indent, unwritable: unwritable, stateName: stateName)
    inner.xmlNode(bare)
    unwritable = inner.unwritable
    var lines = inner.output.split(separator: "\n", omittingEmptySubsequences: false).map(
      String.init)
    if lines.last == "" { lines.removeLast() }
    let modifiers = node.modifiers
    let padding = String(repeating: "  ", count: indent)
    var children: [String] = []
    if let retry = modifiers.retry {
      let pairs: [(String, String?)] = retry.fields.map { name, value in
        switch value {
        case .string(let text): (name, text)
        case .number(let number): (name, ChartValue.numberText(number))
        default: (name, value.jsonText)
        }
      }
      children.append(padding + "  <retry\(attributes(pairs, of: "retry"))/>")
    }
    for route in modifiers.catches {
      children.append(
        padding + "  <catch\(attributes(route.fields.map { ($0, $1) }, of: "catch"))/>")
    }
    var first = lines[0]
    let selfClosing = first.hasSuffix("/>")
    first.removeLast(selfClosing ? 2 : 1)
    if let timeout = modifiers.timeout {
      first += attributes([("timeout", ChartValue.numberText(timeout))], of: "state")
    }
    if selfClosing {
      // `<name …/>`: the element's name is what follows `<`.
      let name = first.drop { $0 == " " }.dropFirst().prefix { $0 != " " && $0 != "/" }
      if children.isEmpty {
        lines[0] = first + "/>"
      } else {
        lines[0] = first + ">"
        lines.insert(contentsOf: children + [padding + "</\(name)>"], at: 1)
      }
    } else {
      lines[0] = first + ">"
      lines.insert(contentsOf: children, at: 1)
    }
    for text in lines { output += text + "\n" }
  }
}
