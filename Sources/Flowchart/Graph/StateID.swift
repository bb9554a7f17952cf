/// Identifies one state of a compiled ``Flowchart``.
///
/// IDs are dense, from zero, in declaration order: a state, then the states of its blocks
/// in the order they are written (a condition's `yes:` before its `no:`, a multiple
/// condition's exits and a dispatch's branches in order), then the state after it. So a
/// chart's ``Flowchart/states`` is a range of them, and the first declared state is
/// `StateID(0)`. IDs are stable as long as the declaration does not change: compiling the
/// same declaration again gives every state the same ID, while adding, removing or moving a
/// state renumbers the states declared after it. An ID is only meaningful with the chart
/// that produced it; see <doc:DeclaringFlowcharts>.
public struct StateID: Hashable, Comparable, Strideable, Sendable, CustomStringConvertible {
  /// The state's position in the chart's ``Flowchart/states``.
  public let index: Int

  /// Creates the ID of the state at `index`.
  public init(_ index: Int) {
    self.index = index
  }

  init(_ index: Int32) {
    self.index = Int(index)
  }

  /// Whether `lhs` was numbered before `rhs`.
  public static func < (lhs: StateID, rhs: StateID) -> Bool { lhs.index < rhs.index }

  /// The number of states from `self` to `other`.
  public func distance(to other: StateID) -> Int { other.index - index }

  /// The ID `n` states after this one.
  public func advanced(by n: Int) -> StateID { StateID(index + n) }

  /// `#` and the index, as in `#3`.
  public var description: String { "#\(index)" }
}

/// One arrow leaving a state.
public struct Exit: Hashable, Sendable {
  /// Which of the state's exits an arrow is.
  ///
  /// Later versions add labels for new kinds of state, so a `switch` over a label needs a
  /// `default:` clause; compare with the static members, and read a keyed exit's text
  /// with ``key`` and a branch's position with ``branch``.
  public struct Label: Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
      case next, yes, no, `default`
      case key(String)
      case branch(Int)
    }

    private let code: Code

    /// The one exit of an action, or the exit a dispatch takes after its branches.
    public static let next = Label(code: .next)
    /// A condition's exit for `true`.
    public static let yes = Label(code: .yes)
    /// A condition's exit for `false`.
    public static let no = Label(code: .no)
    /// A multiple condition's default exit.
    public static let `default` = Label(code: .default)

    /// A multiple condition's exit for the key shown as `text`, the way the printed tree
    /// shows it.
    public static func key(_ text: String) -> Label { Label(code: .key(text)) }

    /// The start of a dispatch's branch, numbered from zero in declaration order.
    public static func branch(_ index: Int) -> Label { Label(code: .branch(index)) }

    /// The key's text, for a multiple condition's keyed exit; `nil` for any other exit.
    public var key: String? {
      if case .key(let text) = code { return text }
      return nil
    }

    /// The branch's position from zero, for the start of a dispatch's branch; `nil` for
    /// any other exit.
    public var branch: Int? {
      if case .branch(let index) = code { return index }
      return nil
    }

    /// `next`, `yes`, `no`, the key, `default` or `branch 1`, …
    public var description: String {
      switch code {
      case .next: "next"
      case .yes: "yes"
      case .no: "no"
      case .key(let key): key
      case .default: "default"
      case .branch(let index): "branch \(index + 1)"
      }
    }
  }

  /// Which exit this is.
  public let label: Label
  /// The state the arrow leads to.
  public let target: StateID
}

/// A read-only description of one compiled state.
public struct StateInfo: Hashable, Sendable {
  /// The state's ID.
  public let id: StateID
  /// The state's name, as declared.
  public let name: String
  /// The state's kind.
  public let kind: StateKind
  /// Whether the state ends its flow.
  public let isFinal: Bool
  /// Whether the state's code is `async`. A dispatch has no code of its own and is never
  /// asynchronous, though the states of its branches may be.
  public let isAsynchronous: Bool
  /// Where the state was declared.
  public let location: SourceLocation
  /// The arrows leaving the state, in declaration order: a condition's `yes` then `no`, a
  /// multiple condition's `Case` and `Default` exits as written, a dispatch's branches then
  /// its `next`. Empty for a final state other than a dispatch.
  public let exits: [Exit]
  /// Whether the state is at the top level of the chart, rather than inside a dispatch
  /// branch.
  public let isTopLevel: Bool
}
