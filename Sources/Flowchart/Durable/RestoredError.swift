/// An error that crossed a snapshot: the type name and the description of the error a run
/// met before it was captured, in place of that error's value.
///
/// A snapshot holds data, not values of any type. When a live run is captured while it stands
/// in a ``Map`` that tolerated a failure of an element, the snapshot keeps that failure as its
/// ``RunError``'s kind, state, path and message, and the error the element's code threw as
/// its type name and its description. On resume, the map's `collect` receives the failure as
/// a ``RunError`` with the same kind, state names and ``RunError/description``, whose
/// ``RunError/underlyingError`` is a `RestoredError` (as its ``RunError/unmatchedKey`` is,
/// for a key without exit):
///
/// ```swift
/// for failure in results.failures {
///   if let restored = failure.error.underlyingError as? RestoredError {
///     log("element \(failure.index) failed before the restart: \(restored)")
///   }
/// }
/// ```
///
/// Captured again, a `RestoredError` keeps the original type name and description.
public struct RestoredError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The original error's type, as `String(reflecting:)` names it (such as
  /// `MyApp.UploadError`).
  public let typeName: String
  /// The original error's description, as `String(describing:)` gave it.
  public let description: String

  /// An error restored as `typeName` with `description`.
  public init(typeName: String, description: String) {
    self.typeName = typeName
    self.description = description
  }

  /// `value` as a snapshot keeps it: its type name and its description (a `RestoredError`
  /// stays itself).
  init(capturing value: Any) {
    if let restored = value as? RestoredError {
      self = restored
    } else {
      self.init(
        typeName: String(reflecting: type(of: value)), description: String(describing: value))
    }
  }
}
