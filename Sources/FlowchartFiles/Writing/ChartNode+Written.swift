// What each statement of a chart file writes, once for both syntaxes: its kind's element
// (XML) or key (JSON), its name, its attributes in the order both write them, and what it
// holds (blocks, exits, branches, stores, a test). The JSON emitter (TextWriter+JSON.swift)
// and the XML emitter (TextWriter+XML.swift) walk this, not the kinds: a new kind of state is
// written by adding its case here.

import Flowchart

/// A statement as both syntaxes write it.
struct WrittenStatement {
  /// The kind's element (`<action>`) and JSON key (`"action"`).
  var element: String
  /// The XML attribute the name is written in: `name` for a state, `state` for a `goTo`,
  /// `path` for an `include`.
  var nameAttribute = "name"
  /// The state's name, a `goTo`'s target or an `include`'s path.
  var name: String
  /// The attributes after the name, in order; a `nil` value is not written.
  var attributes: [(String, WrittenValue?)] = []
  /// What the statement holds, in order.
  var contents: [WrittenContent] = []

  /// A `goTo` or an `include`: its name in `nameAttribute`, no other attribute.
  init(element: String, nameAttribute: String, name: String) {
    self.element = element
    self.nameAttribute = nameAttribute
    self.name = name
  }

  /// A state: its `final` (written only when it is), then `attributes`.
  init(
    state element: String, _ name: String, isFinal: Bool, _ attributes: [(String, WrittenValue?)],
    contents: [WrittenContent] = []
  ) {
    self.element = element
    self.name = name
    self.attributes = [("final", isFinal ? .flag : nil)] + attributes
    self.contents = contents
  }
}

/// Something a statement holds: a block of states, exits, branches, or what XML writes as
/// elements and JSON as a member (``WrittenValue/jsonOnly(_:)``).
enum WrittenContent {
  /// A named block (`yes`, `no`): an element holding the states in XML, a member in JSON.
  case block(String, [ChartNode])
  /// A multiple condition's or a keyed subflow's exits.
  case exits([ChartExit])
  /// A dispatch's branches.
  case branches([ChartBranch])
  /// A map's inline chart: the element's children in XML, `"states"` in JSON.
  case states([ChartNode])
  /// An action's stores: `<storeValue>` elements; a member in JSON.
  case stores([ChartStore])
  /// A condition's built-in test: its element; a member in JSON.
  case test(ChartTest)

  /// Whether JSON writes this after the members, rather than as one of them.
  var isJSONBlock: Bool {
    switch self {
    case .block, .exits, .branches, .states: true
    case .stores, .test: false
    }
  }

  /// Whether this writes no element in XML.
  var isEmptyInXML: Bool {
    switch self {
    case .block, .test: false
    case .exits(let exits): exits.isEmpty
    case .branches(let branches): branches.isEmpty
    case .states(let states): states.isEmpty
    case .stores(let stores): stores.isEmpty
    }
  }
}

/// An attribute's value, as each syntax writes it.
enum WrittenValue {
  /// A string: quoted in JSON, escaped in XML.
  case text(String)
  /// `true` (a final state's `final`): a JSON boolean, the text `true` in XML.
  case flag
  /// A whole number, in digits in both syntaxes.
  case count(Int)
  /// A number (a delay's seconds), as ``ChartValue`` writes it, in both syntaxes.
  case number(Double)
  /// JSON text that XML writes as child elements instead (an action's stores, a condition's
  /// test).
  case jsonOnly(String)

  /// The value as a JSON member's value.
  var jsonText: String {
    switch self {
    case .text(let text): TextWriter.quoted(text)
    case .flag: "true"
    case .count(let count): "\(count)"
    case .number(let number): ChartValue.numberText(number)
    case .jsonOnly(let json): json
    }
  }

  /// The value as an XML attribute's text, or `nil` for what XML writes as elements.
  var xmlText: String? {
    switch self {
    case .text(let text): text
    case .flag: "true"
    case .count(let count): "\(count)"
    case .number(let number): ChartValue.numberText(number)
    case .jsonOnly: nil
    }
  }
}

extension ChartNode.Kind {
  /// The statement as both syntaxes write it.
  var written: WrittenStatement {
    switch self {
    case .goTo(let target):
      return WrittenStatement(element: "goTo", nameAttribute: "state", name: target)
    case .include(let path):
      return WrittenStatement(element: "include", nameAttribute: "path", name: path)
    case .action(let action):
      return WrittenStatement(
        state: "action", action.name, isFinal: action.isFinal,
        [
          ("run", action.handler.map(WrittenValue.text)),
          ("store", action.stores.isEmpty ? nil : .jsonOnly(Self.jsonStores(action.stores))),
          ("fail", action.failure.map(WrittenValue.text)),
        ], contents: [.stores(action.stores)])
    case .condition(let condition):
      var decision: (String, WrittenValue?)
      var contents: [WrittenContent] = []
      switch condition.decision {
      case .handler(let run): decision = ("run", .text(run))
      case .test(let test):
        decision = ("test", .jsonOnly(TextWriter.jsonTest(test)))
        contents.append(.test(test))
      }
      if let yes = condition.yes { contents.append(.block("yes", yes)) }
      if let no = condition.no { contents.append(.block("no", no)) }
      return WrittenStatement(
        state: "condition", condition.name, isFinal: condition.isFinal,
        [decision], contents: contents)
    case .multipleCondition(let condition):
      let decision: (String, WrittenValue?) =
        switch condition.decision {
        case .handler(let run): ("run", .text(run))
        case .value(let path): ("value", .text(path))
        }
      return WrittenStatement(
        state: "multipleCondition", condition.name, isFinal: condition.isFinal,
        [decision],
        contents: condition.exits.map { [.exits($0)] } ?? [])
    case .dispatch(let dispatch):
      return WrittenStatement(
        state: "dispatch", dispatch.name, isFinal: dispatch.isFinal,
        [
          ("merge", dispatch.merge.map(WrittenValue.text)),
          ("changes", dispatch.changes.map { .text($0.rawValue) }),
          ("maxConcurrency", dispatch.maxConcurrency.map(WrittenValue.count)),
          ("join", dispatch.join == .all ? nil : .text(dispatch.join.text)),
        ], contents: [.branches(dispatch.branches)])
    case .wait(let wait):
      let input: (String, WrittenValue?) =
        switch wait.input {
        case .handler(let run): ("run", .text(run))
        case .store(let path): ("storeAt", .text(path))
        }
      return WrittenStatement(
        state: "wait", wait.name, isFinal: wait.isFinal,
        [input])
    case .delay(let delay):
      let timing: (String, WrittenValue?) =
        switch delay.timing {
        case .seconds(let seconds): ("seconds", .number(seconds))
        case .until(let path): ("until", .text(path))
        }
      return WrittenStatement(state: "delay", delay.name, isFinal: delay.isFinal, [timing])
    case .subflow(let subflow):
      return WrittenStatement(
        state: "subflow", subflow.name, isFinal: subflow.isFinal,
        [
          ("chart", .text(subflow.chart)),
          ("context", subflow.contextPath.map(WrittenValue.text)),
          ("mapping", subflow.mapping.map(WrittenValue.text)),
        ],
        contents: {
          switch subflow.exits {
          case .none: []
          case .yesNo(let yes, let no): [.block("yes", yes), .block("no", no)]
          case .keyed(let exits): [.exits(exits)]
          }
        }())
    case .map(let map):
      var (chart, contents): (String?, [WrittenContent])
      switch map.chart {
      case .file(let path): (chart, contents) = (path, [])
      case .states(let states): (chart, contents) = (nil, [.states(states)])
      }
      return WrittenStatement(
        state: "map", map.name, isFinal: map.isFinal,
        [
          ("over", .text(map.over)),
          ("into", map.into.map(WrittenValue.text)),
          ("maxConcurrency", map.maxConcurrency.map(WrittenValue.count)),
          ("toleratedFailures", map.toleratedFailures == 0 ? nil : .count(map.toleratedFailures)),
          ("chart", chart.map(WrittenValue.text)),
        ], contents: contents)
    }
  }

  /// An action's stores as a JSON array.
  static func jsonStores(_ stores: [ChartStore]) -> String {
    let objects = stores.map {
      "{\"path\": \(TextWriter.quoted($0.path)), \"value\": \($0.value.jsonText)}"
    }
    return "[\(objects.joined(separator: ", "))]"
  }
}

extension ChartDecision {
  /// The decision as both syntaxes write it in an outcome: `decision` (`yes`, `no`, `done`)
  /// or a multiple condition's `key`.
  var writtenAttribute: (String, String) {
    switch self {
    case .yes: ("decision", "yes")
    case .no: ("decision", "no")
    case .done: ("decision", "done")
    case .key(let key): ("key", key)
    }
  }
}

extension ChartTest.Kind {
  /// The test's element (`<equal>`) and JSON key (`"equal"`).
  var element: String {
    switch self {
    case .equal: "equal"
    case .less: "less"
    case .greater: "greater"
    case .present: "present"
    case .matches: "matches"
    case .all: "all"
    case .any: "any"
    case .not: "not"
    }
  }
}
