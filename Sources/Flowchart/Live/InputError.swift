/// Why ``RunHandle/send(_:to:)-(_,String)`` refused a value: the run is unharmed.
public struct InputError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What was wrong with the call.
  public struct Kind: Hashable, Sendable, CustomStringConvertible {
    private let code: String

    /// No state of the chart has the name, or the ID is not one of the chart's.
    public static let unknownState = Kind(code: "unknown state")
    /// Several states have the name.
    public static let ambiguousState = Kind(code: "ambiguous state")
    /// The state does not wait for input.
    public static let notWaiting = Kind(code: "not a waiting state")
    /// The state waits for a value of another type.
    public static let wrongType = Kind(code: "wrong type")
    /// The run has ended: nothing waits for input any more.
    public static let runEnded = Kind(code: "run ended")

    /// The kind in words.
    public var description: String { code }
  }

  /// What was wrong.
  public let kind: Kind
  /// The state the value was sent to, as the call named it.
  public let stateName: String
  /// A full sentence: what is wrong and what to do.
  public let reason: String

  /// The reason.
  public var description: String { reason }
}
