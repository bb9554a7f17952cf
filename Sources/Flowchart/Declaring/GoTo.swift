/// An arrow to the state with the given name: how a flow joins another path or loops back.
///
/// A `GoTo` takes the place of the next state in its block:
///
/// ```swift
/// Action("Fetch") { try await $0.fetch() }
/// Condition("Succeeded?") { $0.succeeded } yes: {
///   Action("Done", isFinal: true)
/// } no: {
///   Action("Wait") { try await Task.sleep(for: .seconds(1)) }
///   GoTo("Fetch")
/// }
/// ```
///
/// The name must belong to exactly one state, in the same flow: an arrow may not enter or
/// leave a ``Dispatch`` branch. Anything else is a ``DefinitionError``.
public struct GoTo: Sendable {
  @usableFromInline let name: String
  @usableFromInline let location: SourceLocation

  /// Declares an arrow to the state named `name`.
  public init(_ name: String, fileID: String = #fileID, line: Int = #line) {
    self.name = name
    location = SourceLocation(fileID: fileID, line: line)
  }
}
