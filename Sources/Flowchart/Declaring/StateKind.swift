/// What kind of state a state is.
///
/// Seven kinds exist today; later versions add kinds, so a `switch` over a kind needs a `default:` clause, the way one
/// over an `Error` does. Compare with the static members instead:
///
/// ```swift
/// if chart[id].kind == .condition { … }
/// ```
public struct StateKind: Hashable, Sendable, CaseIterable, CustomStringConvertible {
  private enum Code: Hashable, Sendable, CaseIterable {
    case condition, multipleCondition, action, dispatch, subflow, map, waiting
  }

  private let code: Code

  /// Decides yes or no; two exits. Printed `S` (a simple condition, as in STWorkflow).
  public static let condition = StateKind(code: .condition)
  /// Decides a key; one exit per key and perhaps a default. Printed `M`.
  public static let multipleCondition = StateKind(code: .multipleCondition)
  /// Does work; one exit. Printed `A`.
  public static let action = StateKind(code: .action)
  /// Runs branches concurrently, then follows one exit. Printed `D`.
  public static let dispatch = StateKind(code: .dispatch)
  /// Runs another chart (a ``Subflow``), then follows one exit, yes or no, or the exit of
  /// the final state the other chart ended at. Printed `F`.
  public static let subflow = StateKind(code: .subflow)
  /// Runs another chart once per element of a collection (a ``Map``), then follows one
  /// exit. Printed `E` (for each).
  public static let map = StateKind(code: .map)
  /// Waits for a value sent to a live run from outside (a ``Wait``), applies it, then
  /// follows one exit. Printed `W`.
  public static let waiting = StateKind(code: .waiting)

  /// Every kind this version of Flowchart knows, in the order above.
  public static var allCases: [StateKind] { Code.allCases.map(StateKind.init(code:)) }

  /// The letter the tree printer writes after the state's name.
  public var letter: Character {
    switch code {
    case .condition: "S"
    case .multipleCondition: "M"
    case .action: "A"
    case .dispatch: "D"
    case .subflow: "F"
    case .map: "E"
    case .waiting: "W"
    }
  }

  /// The kind's name in words, as used in messages: `condition`, `multiple condition`, …
  public var description: String {
    switch code {
    case .condition: "condition"
    case .multipleCondition: "multiple condition"
    case .action: "action"
    case .dispatch: "dispatch"
    case .subflow: "subflow"
    case .map: "map"
    case .waiting: "waiting state"
    }
  }
}
