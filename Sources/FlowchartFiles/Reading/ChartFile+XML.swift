import Flowchart

/// Builds a ``ChartFile`` from an XML element tree, recording every problem of format.
struct XMLChartBuilder {
  let path: String
  var problems = ProblemList()

  static let statementElements = ChartVocabulary.statements
  static let testElements = ChartVocabulary.tests
  /// Attributes the root may carry so that editors find the schema.
  static let rootAttributes = [
    "xmlns", "xmlns:xsi", "xsi:noNamespaceSchemaLocation", "xsi:schemaLocation",
  ]
  /// The attributes of the most common elements, made once rather than for every element
  /// read (issue 26).
  static let actionAttributes = ["name", "final", "run", "fail", "timeout"]
  static let conditionAttributes = ["name", "final", "run", "timeout"]

  mutating func chart(_ root: XMLElementNode) -> ChartFile {
    var file = ChartFile(path: path, states: [])
    guard root.name == "flowchart" else {
      problems.malformed(
        "The root element is <\(root.name)>: a chart file's root is <flowchart>.",
        at: root.location)
      return file
    }
    check(root, attributes: Self.rootAttributes, text: false)
    var statements: [XMLElementNode] = []
    for child in root.children {
      if child.name == "entryPoint" {
        check(child, attributes: ["state"], text: false)
        if let name = required("state", of: child) {
          file.entryPoints.append(ChartReference(name, at: child.location))
        }
      } else if child.name == "outcomes" {
        if file.outcomes != nil {
          problems.malformed("<flowchart> holds a second <outcomes>: keep one.", at: child.location)
        }
        file.outcomes = outcomes(child)
      } else {
        statements.append(child)
      }
    }
    file.states = block(statements, depth: 1)
    return file
  }

  /// Records unknown attributes, text where none belongs, and children where none belong.
  ///
  /// `allowed` is a short list, searched in order: comparing a few short names is cheaper
  /// than hashing them, and this runs for every element of a file.
  mutating func check(
    _ element: XMLElementNode, attributes allowed: [String], text: Bool,
    children: Bool = true
  ) {
    func isAllowed(_ name: String) -> Bool {
      allowed.contains(name) || (name == "isFinal" && allowed.contains("final"))
    }
    // The names are sorted, for the order of the problems, only when one is unknown.
    let unknown =
      element.attributes.keys.contains { !isAllowed($0) }
      ? element.attributes.keys.sorted().filter { !isAllowed($0) } : []
    for name in unknown {
      let list = allowed.filter { !$0.hasPrefix("xml") && !$0.hasPrefix("xsi") }.sorted()
      problems.unknown(
        name,
        "Unknown attribute '\(name)' on <\(element.name)>"
          + (list.isEmpty
            ? ": it takes none" : ": its attributes are \(list.joined(separator: ", "))"),
        among: list, quote: { "'\($0)'" }, at: element.location)
    }
    if !text, let (content, location) = element.text {
      let shown = content.trimmingCharacters(in: .whitespacesAndNewlines).prefix(20)
      problems.malformed(
        "<\(element.name)> holds the text '\(shown)': it holds only elements. Remove the text, or put it in an attribute.",
        at: location)
    }
    if !children, let child = element.children.first {
      problems.malformed(
        "<\(element.name)> holds <\(child.name)>: it holds no elements.", at: child.location)
    }
  }

  mutating func required(_ attribute: String, of element: XMLElementNode) -> String? {
    guard let value = element.attribute(attribute) else {
      problems.malformed(
        "<\(element.name)> needs the attribute \(attribute)=\"…\".", at: element.location)
      return nil
    }
    return value
  }

  /// Whether a state is final: `final="…"`, or `isFinal="…"` as Swift spells it; both at once
  /// must agree.
  mutating func isFinal(_ element: XMLElementNode) -> Bool {
    let final = flag("final", of: element)
    guard element.attribute("isFinal") != nil else { return final }
    let isFinal = flag("isFinal", of: element)
    if element.attribute("final") != nil, final != isFinal {
      problems.malformed(
        "final=\"\(final)\" and isFinal=\"\(isFinal)\" on <\(element.name)> disagree: they are the same attribute, so write one of them.",
        at: element.location)
    }
    return isFinal
  }

  mutating func flag(_ attribute: String, of element: XMLElementNode) -> Bool {
    switch element.attribute(attribute) {
    case nil, "false": return false
    case "true": return true
    case let value?:
      problems.malformed(
        "\(attribute)=\"\(value)\" on <\(element.name)>: write \(attribute)=\"true\" or \(attribute)=\"false\".",
        at: element.location)
      return false
    }
  }

  /// A whole-number attribute of at least `minimum`, `nil` when absent (or wrong, which is
  /// recorded).
  mutating func count(_ attribute: String, of element: XMLElementNode, minimum: Int) -> Int? {
    guard let text = element.attribute(attribute) else { return nil }
    guard text.count <= 9, !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }),
      let value = Int(text), value >= minimum
    else {
      problems.malformed(
        "\(attribute)=\"\(text)\" on <\(element.name)>: write a whole number of at least \(minimum).",
        at: element.location)
      return nil
    }
    return value
  }

  /// A subflow's `<yes>`/`<no>` or `<case>`/`<default>` children, as its exits.
  mutating func subflowExits(_ element: XMLElementNode, name: String?, depth: Int)
    -> ChartSubflow.Exits?
  {
    var yes: [ChartNode]?
    var no: [ChartNode]?
    var keyed: [ChartExit] = []
    for child in element.children {
      switch child.name {
      case "yes", "no":
        branch(child, of: "subflow", yes: &yes, no: &no, depth: depth)
      case "case", "default":
        keyed.append(exit(child, depth: depth))
      default:
        problems.malformed(
          "<subflow> holds <\(child.name)>: it holds <yes> and <no>, or <case key=\"…\"> and <default>.",
          at: child.location)
      }
    }
    switch (yes != nil || no != nil, keyed.isEmpty) {
    case (false, true): return ChartSubflow.Exits.none
    case (true, true): return .yesNo(yes: yes ?? [], no: no ?? [])
    case (false, false): return .keyed(keyed)
    case (true, false):
      problems.malformed(
        "Subflow '\(name ?? "")' has both <yes>/<no> and <case>/<default> exits: keep one kind.",
        at: element.location, name: name)
      return nil
    }
  }

  /// A `<yes>` or `<no>` child of a condition or a subflow (`element`), into `yes` or `no`;
  /// a second one of either is recorded.
  mutating func branch(
    _ child: XMLElementNode, of element: String, yes: inout [ChartNode]?,
    no: inout [ChartNode]?, depth: Int
  ) {
    check(child, attributes: [], text: false)
    if (child.name == "yes" ? yes : no) != nil {
      problems.malformed(
        "<\(element)> holds a second <\(child.name)>: keep one.", at: child.location)
    }
    let states = self.states(of: child, depth: depth + 1)
    if child.name == "yes" { yes = states } else { no = states }
  }

  /// A `<case key="…">` or `<default>` child, as an exit.
  mutating func exit(_ child: XMLElementNode, depth: Int) -> ChartExit {
    let isCase = child.name == "case"
    check(child, attributes: isCase ? ["key"] : [], text: false)
    let key = isCase ? (required("key", of: child) ?? "") : nil
    return ChartExit(key: key, states: states(of: child, depth: depth + 1), at: child.location)
  }

  mutating func block(_ elements: [XMLElementNode], depth: Int) -> [ChartNode] {
    guard depth <= maximumStateDepth else {
      if let first = elements.first { problems.statesTooDeep(at: first.location) }
      return []
    }
    return elements.compactMap { statement($0, depth: depth) }
  }

  /// A `<yes>`, `<no>`, `<case>`, `<default>` or `<branch>` block's states.
  mutating func states(of element: XMLElementNode, depth: Int) -> [ChartNode] {
    block(element.children, depth: depth)
  }

  /// The elements whose states take modifiers (a `timeout` attribute, `<retry>` and
  /// `<catch>` children).
  static let modifiedElements = [
    "action", "condition", "multipleCondition", "wait", "subflow", "map", "delay",
  ]

  /// A statement with its modifiers, for the kinds that take them.
  mutating func statement(_ element: XMLElementNode, depth: Int) -> ChartNode? {
    guard Self.modifiedElements.contains(element.name) else {
      let statement = bareStatement(element, depth: depth)
      if statement == nil, let name = element.attribute("name") {
        problems.droppedStates.insert(name)
      }
      return statement
    }
    let (bare, modifiers) = splitModifiers(element)
    guard var statement = bareStatement(bare, depth: depth) else {
      if let name = element.attribute("name") { problems.droppedStates.insert(name) }
      return nil
    }
    statement.modifiers = modifiers
    return statement
  }

  mutating func bareStatement(_ element: XMLElementNode, depth: Int) -> ChartNode? {
    let at = element.location
    switch element.name {
    case "action":
      check(element, attributes: Self.actionAttributes, text: false)
      var stores: [ChartStore] = []
      for child in element.children {
        guard child.name == "storeValue" else {
          problems.malformed(
            "<action> holds <\(child.name)>: it holds only <storeValue> elements\(Suggestions.hint(for: child.name, among: ["storeValue", "retry", "catch"], quote: { "<\($0)>" })).",
            at: child.location)
          continue
        }
        check(child, attributes: ["path", "value", "type"], text: false, children: false)
        if let path = required("path", of: child), let value = value(of: child) {
          stores.append(ChartStore(path: path, value: value, at: child.location))
        }
      }
      guard let name = required("name", of: element) else { return nil }
      let action = ChartAction(
        name: name, isFinal: isFinal(element), handler: element.attribute("run"),
        stores: stores, failure: element.attribute("fail"))
      return ChartNode(.action(action), at: at)
    case "condition":
      check(element, attributes: Self.conditionAttributes, text: false)
      let name = required("name", of: element)
      var yes: [ChartNode]?
      var no: [ChartNode]?
      var tests: [ChartTest] = []
      // Children with a problem (recorded): a misspelled or wrong test.
      var mistakes = 0
      for child in element.children {
        switch child.name {
        case "yes", "no":
          branch(child, of: "condition", yes: &yes, no: &no, depth: depth)
        case _ where Self.testElements.contains(child.name):
          if let test = test(child, depth: 0) { tests.append(test) } else { mistakes += 1 }
        default:
          mistakes += 1
          problems.unknown(
            child.name,
            "<condition> holds <\(child.name)>: it holds a test (\(Self.testElements.joined(separator: ", "))), <yes> and <no>",
            among: Self.testElements + ["yes", "no"], quote: { "<\($0)>" }, at: child.location)
        }
      }
      guard let name else { return nil }
      let decision: ChartCondition.Decision
      switch (element.attribute("run"), tests.count) {
      case (let run?, 0):
        decision = .handler(run)
      case (nil, 1):
        decision = .test(tests[0])
      // A condition with a problem (recorded) still declares the state, so that its blocks
      // and the names they use are checked too.
      case (.some, _):
        problems.alternatives(.conditionDecision, name, both: true, in: .xml, at: at)
        decision = .test(ChartTest(.all([]), at: at))
      case (nil, 0):
        if mistakes == 0 {
          problems.alternatives(.conditionDecision, name, both: false, in: .xml, at: at)
        }
        decision = .test(ChartTest(.all([]), at: at))
      case (nil, _):
        problems.malformed(
          "Condition '\(name)' has \(tests.count) tests: combine them in <all> or <any>.",
          at: at, name: name)
        decision = .test(ChartTest(.all([]), at: at))
      }
      let condition = ChartCondition(
        name: name, isFinal: isFinal(element), decision: decision, yes: yes, no: no)
      return ChartNode(.condition(condition), at: at)
    case "multipleCondition":
      check(element, attributes: ["name", "final", "run", "value", "timeout"], text: false)
      var exits: [ChartExit]?
      for child in element.children {
        switch child.name {
        case "case", "default":
          exits = (exits ?? []) + [exit(child, depth: depth)]
        default:
          problems.malformed(
            "<multipleCondition> holds <\(child.name)>: it holds <case key=\"…\"> and <default> elements\(Suggestions.hint(for: child.name, among: ["case", "default"], quote: { "<\($0)>" })).",
            at: child.location)
        }
      }
      guard let name = required("name", of: element) else { return nil }
      let decision: ChartMultipleCondition.Decision
      switch (element.attribute("run"), element.attribute("value")) {
      case (let run?, nil): decision = .handler(run)
      case (nil, let path?): decision = .value(path: path)
      case (.some, .some):
        problems.alternatives(.keyDecision, name, both: true, in: .xml, at: at)
        return nil
      case (nil, nil):
        problems.alternatives(.keyDecision, name, both: false, in: .xml, at: at)
        return nil
      }
      let condition = ChartMultipleCondition(
        name: name, isFinal: isFinal(element), decision: decision, exits: exits)
      return ChartNode(.multipleCondition(condition), at: at)
    case "dispatch":
      check(
        element, attributes: ["name", "final", "merge", "changes", "maxConcurrency", "join"],
        text: false)
      var branches: [ChartBranch] = []
      for child in element.children {
        guard child.name == "branch" else {
          problems.malformed(
            "<dispatch> holds <\(child.name)>: it holds only <branch> elements\(Suggestions.hint(for: child.name, among: ["branch"], quote: { "<\($0)>" })).",
            at: child.location)
          continue
        }
        check(child, attributes: ["name"], text: false)
        var after: [String] = []
        var statements: [XMLElementNode] = []
        for grandchild in child.children {
          if grandchild.name == "after" {
            check(grandchild, attributes: ["branch"], text: false, children: false)
            if !statements.isEmpty {
              problems.malformed(
                "<after> comes after the branch's states: list a branch's <after> elements first.",
                at: grandchild.location)
            }
            if let name = required("branch", of: grandchild) { after.append(name) }
          } else {
            statements.append(grandchild)
          }
        }
        branches.append(
          ChartBranch(
            name: child.attribute("name"), after: after,
            states: block(statements, depth: depth + 1), at: child.location))
      }
      guard let name = required("name", of: element) else { return nil }
      var join = ChartJoin.all
      if let text = element.attribute("join") {
        if let parsed = ChartJoin(text: text) {
          join = parsed
        } else {
          problems.malformed(
            "join=\"\(text)\" on <dispatch>: write all, firstSuccess, toleratingFailures(N) or quorum(N).",
            at: at, name: name)
        }
      }
      var changes: ChartChanges?
      if let text = element.attribute("changes") {
        changes = ChartChanges(rawValue: text)
        if changes == nil {
          problems.malformed(
            "changes=\"\(text)\" on <dispatch>: write merge (each branch's changed keys, the default) or discard (drop the branches' changes).",
            at: at, name: name)
        } else if element.attribute("merge") != nil {
          problems.malformed(
            "Dispatch '\(name)' has both merge=\"…\" (a registered merge) and changes=\"\(text)\": keep one.",
            at: at, name: name)
        }
      }
      let dispatch = ChartDispatch(
        name: name, isFinal: isFinal(element), merge: element.attribute("merge"),
        changes: changes, maxConcurrency: count("maxConcurrency", of: element, minimum: 1),
        join: join,
        branches: branches)
      return ChartNode(.dispatch(dispatch), at: at)
    case "wait":
      check(
        element, attributes: ["name", "final", "run", "storeAt", "timeout"], text: false,
        children: false)
      guard let name = required("name", of: element) else { return nil }
      let input: ChartWait.Input
      switch (element.attribute("run"), element.attribute("storeAt")) {
      case (let run?, nil): input = .handler(run)
      case (nil, let path?): input = .store(path: path)
      case (.some, .some):
        problems.alternatives(.waitInput, name, both: true, in: .xml, at: at)
        return nil
      case (nil, nil):
        problems.alternatives(.waitInput, name, both: false, in: .xml, at: at)
        return nil
      }
      return ChartNode(
        .wait(ChartWait(name: name, isFinal: isFinal(element), input: input)), at: at)
    case "delay":
      check(
        element, attributes: ["name", "final", "seconds", "until", "timeout"], text: false,
        children: false)
      guard let name = required("name", of: element) else { return nil }
      let timing: ChartDelay.Timing
      switch (element.attribute("seconds"), element.attribute("until")) {
      case (let text?, nil):
        var reader = ModifierFieldReader(quote: { $0 }, problems: problems)
        let value = reader.seconds(
          .string(text), field: "seconds", positive: false, state: name, at: at)
        problems = reader.problems
        guard let value else { return nil }
        timing = .seconds(value)
      case (nil, let path?): timing = .until(path: path)
      case (.some, .some), (nil, nil):
        problems.malformed(
          "Delay '\(name)' needs one of seconds=\"…\" (a number of seconds) or until=\"…\" (the key of the data that holds an RFC 3339 time, such as 2026-01-04T00:00:00Z), not \(element.attribute("seconds") == nil ? "neither" : "both").",
          at: at, name: name)
        return nil
      }
      return ChartNode(
        .delay(ChartDelay(name: name, isFinal: isFinal(element), timing: timing)), at: at)
    case "subflow":
      check(
        element, attributes: ["name", "final", "chart", "context", "mapping", "timeout"],
        text: false)
      let name = element.attribute("name")
      let exits = subflowExits(element, name: name, depth: depth)
      guard let name = required("name", of: element), let chart = required("chart", of: element),
        let exits
      else { return nil }
      if element.attribute("context") != nil, element.attribute("mapping") != nil {
        problems.alternatives(.subflowContext, name, both: true, in: .xml, at: at)
        return nil
      }
      let subflow = ChartSubflow(
        name: name, isFinal: isFinal(element), chart: chart,
        contextPath: element.attribute("context"), mapping: element.attribute("mapping"),
        exits: exits)
      return ChartNode(.subflow(subflow), at: at)
    case "map":
      check(
        element,
        attributes: [
          "name", "final", "over", "into", "chart", "maxConcurrency", "toleratedFailures",
          "timeout",
        ], text: false)
      guard let name = required("name", of: element), let over = required("over", of: element)
      else { return nil }
      let source: ChartSource
      switch (element.attribute("chart"), element.children.isEmpty) {
      case (let chart?, true): source = .file(chart)
      case (nil, false): source = .states(block(element.children, depth: depth + 1))
      case (.some, false):
        problems.alternatives(.mapChart, name, both: true, in: .xml, at: at)
        return nil
      case (nil, true):
        problems.alternatives(.mapChart, name, both: false, in: .xml, at: at)
        return nil
      }
      let map = ChartMap(
        name: name, isFinal: isFinal(element), over: over, into: element.attribute("into"),
        chart: source, maxConcurrency: count("maxConcurrency", of: element, minimum: 1),
        toleratedFailures: count("toleratedFailures", of: element, minimum: 0) ?? 0)
      return ChartNode(.map(map), at: at)
    case "goTo":
      check(element, attributes: ["state"], text: false, children: false)
      guard let target = required("state", of: element) else { return nil }
      return ChartNode(.goTo(target), at: at)
    case "include":
      check(element, attributes: ["path"], text: false, children: false)
      guard let path = required("path", of: element) else { return nil }
      return ChartNode(.include(path), at: at)
    default:
      problems.unknown(
        element.name,
        "Unknown element <\(element.name)>: a block holds \(Self.statementElements.map { "<\($0)>" }.joined(separator: ", "))",
        among: Self.statementElements, quote: { "<\($0)>" }, at: at)
      return nil
    }
  }
}
