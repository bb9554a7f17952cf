// The file model: a chart file's tree of records, one struct or enum per element of the
// format (the chart, its outcomes and entry points, each kind of statement, tests, exits,
// branches), each element with where it was written. It is over 500 lines on purpose: it is
// one idea, the format's grammar as types, read top to bottom, and most of its length is the
// initializers each record spells out (Swift synthesizes a memberwise initializer only at
// `internal` access; the readers, the binder and the tests build these with `package`
// ones). Split across files, the same records would only repeat that shape across files.

import Flowchart

/// A chart as a file declares it: the tree of its states, each with the file, line and column
/// it was read from, the same whichever syntax it was written in.
///
/// Read one with ``read(contentsOf:fileSizeLimit:)`` or `parse(_:syntax:path:)`, bind it to
/// your code with ``flowchart(handlers:stateLimit:)``, write it back with ``text(in:)``.
///
/// ```swift
/// var handlers = HandlerRegistry<Launch>()
/// handlers["isFirstLaunch"] = .condition { $0.isFirstLaunch }
/// handlers["fetch"] = .action { $0.log.append("fetched") }
/// let file = try ChartFile.read(contentsOf: URL(filePath: "Samples/first-launch.json"))
/// let chart = try file.flowchart(handlers: handlers)
/// ```
public struct ChartFile: Hashable, Sendable {
  /// The path the file was read from, as its locations name it.
  public var path: String
  /// Names of states a run may start at that the start does not lead to (see
  /// `Flowchart.init(entryPoints:fileID:line:_:)`).
  package var entryPoints: [ChartReference]
  /// The top-level states, in order: the first is the start.
  package var states: [ChartNode]
  /// The files this one includes, read, by the path its `include` statements (and its
  /// subflows' and maps' `chart`) give.
  package var includedFiles: [String: ChartFile]
  /// What the chart's runs come to, by final state and decision, or `nil` when the file
  /// declares no outcomes.
  package var outcomes: ChartOutcomes?

  /// Creates a chart file's tree.
  package init(
    path: String, entryPoints: [ChartReference] = [], states: [ChartNode],
    includedFiles: [String: ChartFile] = [:], outcomes: ChartOutcomes? = nil
  ) {
    self.path = path
    self.entryPoints = entryPoints
    self.states = states
    self.includedFiles = includedFiles
    self.outcomes = outcomes
  }
}

/// The outcomes a chart file declares: the file form of `Outcomes`, whose outcome values are
/// strings.
package struct ChartOutcomes: Hashable, Sendable {
  /// Whether every way a run can end must have an outcome.
  package var mapsEveryEnd: Bool
  /// The rules, in order.
  package var rules: [ChartOutcomeRule]
  /// Where the outcomes were written.
  package var location: SourceLocation

  /// Creates a chart's outcomes.
  package init(mapsEveryEnd: Bool = false, rules: [ChartOutcomeRule], at location: SourceLocation) {
    self.mapsEveryEnd = mapsEveryEnd
    self.rules = rules
    self.location = location
  }
}

/// One outcome of a chart file: a final state of the top level, optionally what it decided,
/// and the outcome that end means.
package struct ChartOutcomeRule: Hashable, Sendable {
  /// The outcome, a string.
  package var outcome: String
  /// The name of a final state of the top level.
  package var state: String
  /// What the state decided: `yes`, `no`, `done`, or a multiple condition's key; `nil` for
  /// any decision.
  package var decision: ChartDecision?
  /// Where the rule was written.
  package var location: SourceLocation

  /// Creates a rule.
  package init(
    outcome: String, state: String, decision: ChartDecision? = nil, at location: SourceLocation
  ) {
    self.outcome = outcome
    self.state = state
    self.decision = decision
    self.location = location
  }
}

/// A decision as a file names it (`"yes"`, `"no"`, `"done"`, or `{"key": …}` / `key="…"`).
package enum ChartDecision: Hashable, Sendable {
  /// A condition decided yes.
  case yes
  /// A condition decided no.
  case no
  /// An action, dispatch, subflow, map or wait finished its work.
  case done
  /// A multiple condition decided this key.
  case key(String)
}

/// A name written in a file, with where it was written: an entry point.
package struct ChartReference: Hashable, Sendable {
  /// The name.
  package var name: String
  /// Where the name was written.
  package var location: SourceLocation

  /// Creates a reference to the state named `name`.
  package init(_ name: String, at location: SourceLocation) {
    self.name = name
    self.location = location
  }
}

/// One statement of a chart file: a state, an arrow to a named state, or an included file.
package struct ChartNode: Hashable, Sendable {
  /// What the statement declares.
  package var kind: Kind
  /// Where it was written: the start of its element (XML) or object (JSON).
  package var location: SourceLocation
  /// The state's timeout, retries and catch routes; empty for a `goTo`, an `include` and a
  /// dispatch, which take none.
  package var modifiers: ChartModifiers

  /// Creates a statement.
  package init(_ kind: Kind, at location: SourceLocation, modifiers: ChartModifiers = .init()) {
    self.kind = kind
    self.location = location
    self.modifiers = modifiers
  }

  /// The kinds of statement.
  package enum Kind: Hashable, Sendable {
    /// An action (`<action>`, `{"action": …}`).
    case action(ChartAction)
    /// A condition (`<condition>`, `{"condition": …}`).
    case condition(ChartCondition)
    /// A multiple condition (`<multipleCondition>`, `{"multipleCondition": …}`).
    case multipleCondition(ChartMultipleCondition)
    /// A dispatch (`<dispatch>`, `{"dispatch": …}`).
    case dispatch(ChartDispatch)
    /// An arrow to the state with this name (`<goTo state="…"/>`, `{"goTo": …}`).
    case goTo(String)
    /// The top-level states of another file, in this block (`<include path="…"/>`,
    /// `{"include": …}`), the path relative to this file's folder.
    case include(String)
    /// A state that waits for input from outside a live run (`<wait>`, `{"wait": …}`).
    case wait(ChartWait)
    /// A state that runs another chart file (`<subflow>`, `{"subflow": …}`).
    case subflow(ChartSubflow)
    /// A state that runs a chart once per element of an array (`<map>`, `{"map": …}`).
    case map(ChartMap)
    /// A state that waits for a time (`<delay>`, `{"delay": …}`).
    case delay(ChartDelay)
  }

  /// The state's name; `nil` for a `goTo` or an `include`.
  package var stateName: String? {
    switch kind {
    case .action(let action): action.name
    case .condition(let condition): condition.name
    case .multipleCondition(let condition): condition.name
    case .dispatch(let dispatch): dispatch.name
    case .wait(let wait): wait.name
    case .subflow(let subflow): subflow.name
    case .map(let map): map.name
    case .delay(let delay): delay.name
    case .goTo, .include: nil
    }
  }
}

/// An action as a file declares it.
package struct ChartAction: Hashable, Sendable {
  /// The state's name.
  package var name: String
  /// Whether the state ends its flow.
  package var isFinal: Bool
  /// The name of the registered action to run, if any.
  package var handler: String?
  /// Values the action stores in a data context before it runs its handler, in order
  /// (WorkflowSchema's `storeValue`).
  package var stores: [ChartStore]
  /// The message of the built-in failure the action throws after its stores and its
  /// handler (a ``ChartFailure``), or `nil` for none.
  package var failure: String?

  /// Creates an action.
  package init(
    name: String, isFinal: Bool = false, handler: String? = nil, stores: [ChartStore] = [],
    failure: String? = nil
  ) {
    self.name = name
    self.isFinal = isFinal
    self.handler = handler
    self.stores = stores
    self.failure = failure
  }
}

/// A value an action stores at a path of its data context.
package struct ChartStore: Hashable, Sendable {
  /// Where the value goes (see ``ChartValue/subscript(path:)``).
  package var path: String
  /// The value.
  package var value: ChartValue
  /// Where the store was written.
  package var location: SourceLocation

  /// Creates a store.
  package init(path: String, value: ChartValue, at location: SourceLocation) {
    self.path = path
    self.value = value
    self.location = location
  }
}

/// A condition as a file declares it.
package struct ChartCondition: Hashable, Sendable {
  /// The state's name.
  package var name: String
  /// Whether the state ends its flow (it still decides).
  package var isFinal: Bool
  /// How it decides: a registered condition, or a built-in test.
  package var decision: Decision
  /// The `yes` block, or `nil` when the file declares none.
  package var yes: [ChartNode]?
  /// The `no` block, or `nil` when the file declares none.
  package var no: [ChartNode]?

  /// Creates a condition.
  package init(
    name: String, isFinal: Bool = false, decision: Decision, yes: [ChartNode]? = nil,
    no: [ChartNode]? = nil
  ) {
    self.name = name
    self.isFinal = isFinal
    self.decision = decision
    self.yes = yes
    self.no = no
  }

  /// How a condition decides.
  package enum Decision: Hashable, Sendable {
    /// The registered condition with this name.
    case handler(String)
    /// A built-in test over the data context.
    case test(ChartTest)
  }
}

/// A built-in test over a data context, in the spirit of WorkflowSchema's conditions and
/// Step Functions' Choice rules.
package struct ChartTest: Hashable, Sendable {
  /// What is tested.
  package var kind: Kind
  /// Where the test was written.
  package var location: SourceLocation

  /// Creates a test.
  package init(_ kind: Kind, at location: SourceLocation) {
    self.kind = kind
    self.location = location
  }

  /// The tests.
  package indirect enum Kind: Hashable, Sendable {
    /// The value at the path equals the value.
    case equal(path: String, value: ChartValue)
    /// The value at the path is less than the value: both numbers, or both strings.
    case less(path: String, value: ChartValue)
    /// The value at the path is greater than the value: both numbers, or both strings.
    case greater(path: String, value: ChartValue)
    /// A value other than `null` is at the path.
    case present(path: String)
    /// The value at the path is a string that the regular expression matches (anywhere in
    /// it, unless the pattern is anchored with `^` and `$`).
    case matches(path: String, pattern: String)
    /// Every test passes (true when there is none).
    case all([ChartTest])
    /// At least one test passes (false when there is none).
    case any([ChartTest])
    /// The test fails.
    case not(ChartTest)
  }
}

/// A multiple condition as a file declares it: its keys are strings.
package struct ChartMultipleCondition: Hashable, Sendable {
  /// The state's name.
  package var name: String
  /// Whether the state ends its flow (it still decides).
  package var isFinal: Bool
  /// How it decides its key.
  package var decision: Decision
  /// The exits in order, or `nil` when the file declares none.
  package var exits: [ChartExit]?

  /// Creates a multiple condition.
  package init(name: String, isFinal: Bool = false, decision: Decision, exits: [ChartExit]? = nil) {
    self.name = name
    self.isFinal = isFinal
    self.decision = decision
    self.exits = exits
  }

  /// How a multiple condition decides its key.
  package enum Decision: Hashable, Sendable {
    /// The registered multiple condition with this name.
    case handler(String)
    /// The value at this path of the data context, as ``ChartValue/keyText``.
    case value(path: String)
  }
}

/// One exit of a multiple condition: a case for a key, or the default.
package struct ChartExit: Hashable, Sendable {
  /// The key, or `nil` for the default exit.
  package var key: String?
  /// The states of the exit.
  package var states: [ChartNode]
  /// Where the exit was written.
  package var location: SourceLocation

  /// Creates an exit.
  package init(key: String?, states: [ChartNode], at location: SourceLocation) {
    self.key = key
    self.states = states
    self.location = location
  }
}

/// A dispatch as a file declares it.
package struct ChartDispatch: Hashable, Sendable {
  /// The state's name.
  package var name: String
  /// Whether the state ends its flow once its branches have ended.
  package var isFinal: Bool
  /// The name of the registered merge, or `nil` for the join ``changes`` says.
  package var merge: String?
  /// How the branches' changes join when there is no ``merge``, as the file says it
  /// (`"changes"`), or `nil` when it says nothing: then a data-only chart merges each
  /// branch's changed keys (``ChartChanges/merge``), and a chart whose context is not a
  /// `ChartValue` must name a merge or say ``ChartChanges/discard``.
  package var changes: ChartChanges?
  /// How many branches may run at once, at least 1; `nil` for all.
  package var maxConcurrency: Int?
  /// How many branches must succeed.
  package var join: ChartJoin
  /// The branches, in order.
  package var branches: [ChartBranch]

  /// Creates a dispatch.
  package init(
    name: String, isFinal: Bool = false, merge: String? = nil, changes: ChartChanges? = nil,
    maxConcurrency: Int? = nil, join: ChartJoin = .all, branches: [ChartBranch]
  ) {
    self.name = name
    self.isFinal = isFinal
    self.merge = merge
    self.changes = changes
    self.maxConcurrency = maxConcurrency
    self.join = join
    self.branches = branches
  }
}

/// How a dispatch without a registered merge joins its branches' changes to the data, as a
/// file writes it (`"changes": "merge"`, `changes="discard"`).
package enum ChartChanges: String, Hashable, Sendable, CaseIterable {
  /// Each branch's changed keys are merged into the data; a key two branches changed is a
  /// run error naming it and both branches. The default of a data-only chart.
  case merge
  /// The branches' changes are dropped: the data after the dispatch is the data before it.
  case discard
}

/// A dispatch's join policy as a file writes it: `all`, `firstSuccess`,
/// `toleratingFailures(N)` or `quorum(N)` (see `JoinPolicy`).
package enum ChartJoin: Hashable, Sendable {
  /// Every branch must succeed.
  case all
  /// Every branch runs, and up to this many may fail.
  case toleratingFailures(Int)
  /// Once this many branches have succeeded, the others are cancelled.
  case quorum(Int)
  /// The first branch to succeed wins: a quorum of one, written `firstSuccess`.
  case firstSuccess

  /// The policy as a file writes it.
  package var text: String {
    switch self {
    case .all: "all"
    case .toleratingFailures(let count): "toleratingFailures(\(count))"
    case .quorum(let count): "quorum(\(count))"
    case .firstSuccess: "firstSuccess"
    }
  }

  /// The policy `text` writes, or `nil` when `text` writes none.
  package init?(text: String) {
    switch text {
    case "all": self = .all
    case "firstSuccess": self = .firstSuccess
    default:
      for (prefix, make) in [
        ("toleratingFailures(", Self.toleratingFailures), ("quorum(", Self.quorum),
      ] where text.hasPrefix(prefix) && text.hasSuffix(")") {
        let digits = text.dropFirst(prefix.count).dropLast()
        guard digits.count <= 9, !digits.isEmpty, digits.allSatisfy(\.isASCII),
          let count = Int(digits), count >= 0
        else { return nil }
        self = make(count)
        return
      }
      return nil
    }
  }

  /// The core's policy.
  package var policy: JoinPolicy {
    switch self {
    case .all: .all
    case .toleratingFailures(let count): .toleratingFailures(count)
    case .quorum(let count): .quorum(count)
    case .firstSuccess: .firstSuccess
    }
  }
}

/// A state that waits for input from outside a live run, as a file declares it.
package struct ChartWait: Hashable, Sendable {
  /// The state's name: also the name a live run's input is sent to.
  package var name: String
  /// Whether the state ends its flow once the input is applied.
  package var isFinal: Bool
  /// How the input is applied to the context.
  package var input: Input

  /// Creates a waiting state.
  package init(name: String, isFinal: Bool = false, input: Input) {
    self.name = name
    self.isFinal = isFinal
    self.input = input
  }

  /// How a waiting state applies its input.
  package enum Input: Hashable, Sendable {
    /// The registered input handler with this name (`Handler.input(_:_:)`), typed on the
    /// value it waits for.
    case handler(String)
    /// A data-only chart: the input is a `ChartValue`, stored at this path of the data.
    case store(path: String)
  }
}

/// A state that waits for a time, as a file declares it: a number of seconds, or until the
/// RFC 3339 time a key of the data holds.
package struct ChartDelay: Hashable, Sendable {
  /// The state's name.
  package var name: String
  /// Whether the state ends its flow once the time has passed.
  package var isFinal: Bool
  /// How long, or until when.
  package var timing: Timing

  /// Creates a delay.
  package init(name: String, isFinal: Bool = false, timing: Timing) {
    self.name = name
    self.isFinal = isFinal
    self.timing = timing
  }

  /// How long a delay waits.
  package enum Timing: Hashable, Sendable {
    /// This many seconds (`seconds`), from when the flow enters the state.
    case seconds(Double)
    /// Until the RFC 3339 time (`2026-01-04T00:00:00Z`) at this path of the data (`until`).
    case until(path: String)
  }
}

/// What a subflow or a map runs: another chart file, or states written inline.
package enum ChartSource: Hashable, Sendable {
  /// The chart file at this path, relative to this file's folder (WorkflowSchema's
  /// `loadSchema`, as a subflow).
  case file(String)
  /// States written inline: a chart of their own, whose names are its own.
  case states([ChartNode])
}

/// A subflow as a file declares it: a state that runs another chart file.
///
/// Used as an action when it declares no exits, as a condition with `yes`/`no`, as a
/// multiple condition with exits keyed by the inner chart's final states.
package struct ChartSubflow: Hashable, Sendable {
  /// The state's name.
  package var name: String
  /// Whether the state ends its flow.
  package var isFinal: Bool
  /// The chart file it runs, relative to this file's folder.
  package var chart: String
  /// The path of the data the inner chart runs on (a data-only chart), or `nil` for the
  /// whole context (or the part ``mapping`` names), bound with the same handlers.
  package var contextPath: String?
  /// The name of a registered mapping (`Handler.mapping(_:handlers:stepLimit:)`): the part of
  /// the context the inner chart runs on, typed in Swift, and the registry it is bound with;
  /// `nil` for the whole context or ``contextPath``. A subflow gives one of the two at most.
  package var mapping: String?
  /// How the inner chart's end picks the exit.
  package var exits: Exits

  /// Creates a subflow.
  package init(
    name: String, isFinal: Bool = false, chart: String, contextPath: String? = nil,
    mapping: String? = nil, exits: Exits = .none
  ) {
    self.name = name
    self.isFinal = isFinal
    self.chart = chart
    self.contextPath = contextPath
    self.mapping = mapping
    self.exits = exits
  }

  /// A subflow's exits.
  package enum Exits: Hashable, Sendable {
    /// None: the subflow is an action.
    case none
    /// A condition's: the inner run ends at a final condition.
    case yesNo(yes: [ChartNode], no: [ChartNode])
    /// A multiple condition's: the inner run's final state's name is the key.
    case keyed([ChartExit])
  }
}

/// A map as a file declares it: runs a chart once per element of an array of the data (or of
/// a registered collection), and writes the runs' results back in input order.
package struct ChartMap: Hashable, Sendable {
  /// The state's name.
  package var name: String
  /// Whether the state ends its flow.
  package var isFinal: Bool
  /// The name of a registered collection
  /// (`Handler.collection(over:handlers:stepLimit:collect:)`), whose elements are the runs'
  /// contexts; else the path of the array of the data whose elements are.
  package var over: String
  /// The path the results go to, in input order (`null` for an element whose run failed
  /// within the tolerance); `nil` writes them back over the array. Only for a map over the
  /// data: a registered collection says where its results go.
  package var into: String?
  /// The chart run for each element.
  package var chart: ChartSource
  /// How many runs may go at once, at least 1; `nil` for all at once.
  package var maxConcurrency: Int?
  /// How many runs may fail without failing the map.
  package var toleratedFailures: Int

  /// Creates a map.
  package init(
    name: String, isFinal: Bool = false, over: String, into: String? = nil, chart: ChartSource,
    maxConcurrency: Int? = nil, toleratedFailures: Int = 0
  ) {
    self.name = name
    self.isFinal = isFinal
    self.over = over
    self.into = into
    self.chart = chart
    self.maxConcurrency = maxConcurrency
    self.toleratedFailures = toleratedFailures
  }
}

/// One branch of a dispatch.
package struct ChartBranch: Hashable, Sendable {
  /// The branch's name, if it has one.
  package var name: String?
  /// The names of the branches of the same dispatch that must end before this one starts.
  package var after: [String]
  /// The branch's states.
  package var states: [ChartNode]
  /// Where the branch was written.
  package var location: SourceLocation

  /// Creates a branch.
  package init(
    name: String?, after: [String] = [], states: [ChartNode], at location: SourceLocation
  ) {
    self.name = name
    self.after = after
    self.states = states
    self.location = location
  }
}

/// The two syntaxes of a chart file.
public enum ChartSyntax: String, Hashable, Sendable, CaseIterable {
  /// JSON (`.json`).
  case json
  /// XML (`.xml`).
  case xml

  /// The syntax a path's extension names (`json` or `xml`, in any case), or `nil`.
  public init?(pathExtension: String) {
    self.init(rawValue: pathExtension.lowercased())
  }
}
