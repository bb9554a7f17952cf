/// What kind of state a state is.
///
/// Eight kinds exist today; later versions add kinds, so a `switch` over a kind needs a `default:` clause, the way one
/// over an `Error` does. Compare with the static members instead:
///
/// ```swift
/// if chart[id].kind == .condition { … }
/// ```
public struct StateKind: Hashable, Sendable, CaseIterable, CustomStringConvertible {
  /// Every kind, as an enum the package's modules switch over: where a decision depends on
  /// the kind of state (a diagram's shape, what a final state can decide, what a script can
  /// force), a `switch` over ``code`` lists every case, with no `default:`, so a new kind is
  /// a compile error in each place that must handle it. (The public type stays a struct,
  /// so that adding a kind is not a source break for users' switches.)
  package enum Code: Hashable, Sendable, CaseIterable {
    case condition, multipleCondition, action, dispatch, subflow, map, waiting, delay
  }

  /// Which kind this is, for an exhaustive `switch` inside the package.
  package let code: Code

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
  /// Waits for a duration or until a point in time on the run's clock (a ``Delay``), then
  /// follows one exit. Printed `T` (for time).
  public static let delay = StateKind(code: .delay)

  /// Every kind this version of Flowchart knows, in the order above.
  public static var allCases: [StateKind] { Code.allCases.map(StateKind.init(code:)) }

  /// What a state of this kind decides: yes or no, a key, or nothing but that it is done.
  /// The one answer for every place that needs it (outcome rules, routes and their
  /// scripts, coverage), so a new kind says it once.
  package enum Deciding: Hashable, Sendable {
    case yesOrNo, key, done
  }

  /// What a state of this kind decides (when it is final, its run's decision).
  package var decides: Deciding {
    switch code {
    case .condition: .yesOrNo
    case .multipleCondition: .key
    case .action, .dispatch, .subflow, .map, .waiting, .delay: .done
    }
  }

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
    case .delay: "T"
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
    case .delay: "delay"
    }
  }
}
