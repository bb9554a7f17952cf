import Flowchart

/// A chart as a file declares it: the tree of its states, each with the file, line and column
/// it was read from, the same whichever syntax it was written in.
///
/// Read one with ``read(contentsOf:)`` or `parse(_:syntax:path:)`, bind it to your code with
/// ``flowchart(handlers:)``, write it back with ``text(in:)``.
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
  public var entryPoints: [ChartReference]
  /// The top-level states, in order: the first is the start.
  public var states: [ChartNode]
  /// The files this one includes, read, by the path its `include` statements give.
  public var includedFiles: [String: ChartFile]

  /// Creates a chart file's tree.
  public init(
    path: String, entryPoints: [ChartReference] = [], states: [ChartNode],
    includedFiles: [String: ChartFile] = [:]
  ) {
    self.path = path
    self.entryPoints = entryPoints
    self.states = states
    self.includedFiles = includedFiles
  }
}

/// A name written in a file, with where it was written: an entry point.
public struct ChartReference: Hashable, Sendable {
  /// The name.
  public var name: String
  /// Where the name was written.
  public var location: SourceLocation

  /// Creates a reference to the state named `name`.
  public init(_ name: String, at location: SourceLocation) {
    self.name = name
    self.location = location
  }
}

/// One statement of a chart file: a state, an arrow to a named state, or an included file.
public struct ChartNode: Hashable, Sendable {
  /// What the statement declares.
  public var kind: Kind
  /// Where it was written: the start of its element (XML) or object (JSON).
  public var location: SourceLocation

  /// Creates a statement.
  public init(_ kind: Kind, at location: SourceLocation) {
    self.kind = kind
    self.location = location
  }

  /// The kinds of statement.
  public enum Kind: Hashable, Sendable {
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
  }

  /// The state's name; `nil` for a `goTo` or an `include`.
  public var stateName: String? {
    switch kind {
    case .action(let action): action.name
    case .condition(let condition): condition.name
    case .multipleCondition(let condition): condition.name
    case .dispatch(let dispatch): dispatch.name
    case .goTo, .include: nil
    }
  }
}

/// An action as a file declares it.
public struct ChartAction: Hashable, Sendable {
  /// The state's name.
  public var name: String
  /// Whether the state ends its flow.
  public var isFinal: Bool
  /// The name of the registered action to run, if any.
  public var handler: String?
  /// Values the action stores in a data context before it runs its handler, in order
  /// (WorkflowSchema's `storeValue`).
  public var stores: [ChartStore]

  /// Creates an action.
  public init(
    name: String, isFinal: Bool = false, handler: String? = nil, stores: [ChartStore] = []
  ) {
    self.name = name
    self.isFinal = isFinal
    self.handler = handler
    self.stores = stores
  }
}

/// A value an action stores at a path of its data context.
public struct ChartStore: Hashable, Sendable {
  /// Where the value goes (see ``ChartValue/subscript(path:)``).
  public var path: String
  /// The value.
  public var value: ChartValue
  /// Where the store was written.
  public var location: SourceLocation

  /// Creates a store.
  public init(path: String, value: ChartValue, at location: SourceLocation) {
    self.path = path
    self.value = value
    self.location = location
  }
}

/// A condition as a file declares it.
public struct ChartCondition: Hashable, Sendable {
  /// The state's name.
  public var name: String
  /// Whether the state ends its flow (it still decides).
  public var isFinal: Bool
  /// How it decides: a registered condition, or a built-in test.
  public var decision: Decision
  /// The `yes` block, or `nil` when the file declares none.
  public var yes: [ChartNode]?
  /// The `no` block, or `nil` when the file declares none.
  public var no: [ChartNode]?

  /// Creates a condition.
  public init(
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
  public enum Decision: Hashable, Sendable {
    /// The registered condition with this name.
    case handler(String)
    /// A built-in test over the data context.
    case test(ChartTest)
  }
}

/// A built-in test over a data context, in the spirit of WorkflowSchema's conditions and
/// Step Functions' Choice rules.
public struct ChartTest: Hashable, Sendable {
  /// What is tested.
  public var kind: Kind
  /// Where the test was written.
  public var location: SourceLocation

  /// Creates a test.
  public init(_ kind: Kind, at location: SourceLocation) {
    self.kind = kind
    self.location = location
  }

  /// The tests.
  public indirect enum Kind: Hashable, Sendable {
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
public struct ChartMultipleCondition: Hashable, Sendable {
  /// The state's name.
  public var name: String
  /// Whether the state ends its flow (it still decides).
  public var isFinal: Bool
  /// How it decides its key.
  public var decision: Decision
  /// The exits in order, or `nil` when the file declares none.
  public var exits: [ChartExit]?

  /// Creates a multiple condition.
  public init(name: String, isFinal: Bool = false, decision: Decision, exits: [ChartExit]? = nil) {
    self.name = name
    self.isFinal = isFinal
    self.decision = decision
    self.exits = exits
  }

  /// How a multiple condition decides its key.
  public enum Decision: Hashable, Sendable {
    /// The registered multiple condition with this name.
    case handler(String)
    /// The value at this path of the data context, as ``ChartValue/keyText``.
    case value(path: String)
  }
}

/// One exit of a multiple condition: a case for a key, or the default.
public struct ChartExit: Hashable, Sendable {
  /// The key, or `nil` for the default exit.
  public var key: String?
  /// The states of the exit.
  public var states: [ChartNode]
  /// Where the exit was written.
  public var location: SourceLocation

  /// Creates an exit.
  public init(key: String?, states: [ChartNode], at location: SourceLocation) {
    self.key = key
    self.states = states
    self.location = location
  }
}

/// A dispatch as a file declares it.
public struct ChartDispatch: Hashable, Sendable {
  /// The state's name.
  public var name: String
  /// Whether the state ends its flow once its branches have ended.
  public var isFinal: Bool
  /// The name of the registered merge, or `nil` to drop the branches' changes.
  public var merge: String?
  /// The branches, in order.
  public var branches: [ChartBranch]

  /// Creates a dispatch.
  public init(name: String, isFinal: Bool = false, merge: String? = nil, branches: [ChartBranch]) {
    self.name = name
    self.isFinal = isFinal
    self.merge = merge
    self.branches = branches
  }
}

/// One branch of a dispatch.
public struct ChartBranch: Hashable, Sendable {
  /// The branch's name, if it has one.
  public var name: String?
  /// The branch's states.
  public var states: [ChartNode]
  /// Where the branch was written.
  public var location: SourceLocation

  /// Creates a branch.
  public init(name: String?, states: [ChartNode], at location: SourceLocation) {
    self.name = name
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
