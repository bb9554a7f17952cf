import Flowchart
import Testing

/// Where FlowchartTesting's expectations send the issues they find: to Swift Testing, or to a
/// recorder that a test of this package installs for one task to see what would have been
/// recorded.
///
/// Every helper of the library reports through ``report(_:error:sourceLocation:)``, never
/// through `Issue.record` directly, so the package's own tests can check a helper's failure
/// (its text and where it points) with ``recording(_:)`` and still pass cleanly, rather than
/// wrapping each deliberate failure in `withKnownIssue`, which a test run announces as known
/// issues.
package enum IssueReporting {
  /// An issue a helper reported: its text, the error it was about (if any), and where it
  /// points.
  package struct Reported: Sendable {
    /// The issue's text.
    package var comment: String
    /// The description of the error the issue is about, when a helper reported an
    /// unexpected error.
    package var error: String?
    /// Where the issue points: the caller of the helper.
    package var sourceLocation: Testing.SourceLocation
  }

  /// The recorder the current task reports to, or `nil` for Swift Testing.
  @TaskLocal private static var recorder: (@Sendable (Reported) -> Void)?

  /// Reports an issue: to the task's recorder when ``recording(_:)`` installed one, otherwise
  /// to Swift Testing as a failure of the current test.
  package static func report(
    _ comment: String, error: (any Error)? = nil, sourceLocation: Testing.SourceLocation
  ) {
    if let recorder {
      recorder(
        Reported(
          comment: comment, error: error.map { String(describing: $0) },
          sourceLocation: sourceLocation))
    } else if let error {
      Issue.record(error, Comment(rawValue: comment), sourceLocation: sourceLocation)
    } else {
      Issue.record(Comment(rawValue: comment), sourceLocation: sourceLocation)
    }
  }

  /// Runs `body`, collecting the issues the library's helpers report while it runs instead
  /// of recording them, and returns them in the order they were reported.
  package static func recording(_ body: () throws -> Void) rethrows -> [Reported] {
    let collected = Collected()
    try $recorder.withValue(collected.append) { try body() }
    return collected.issues
  }

  /// Runs `body`, collecting the issues the library's helpers report while it runs instead
  /// of recording them, and returns them in the order they were reported.
  package static func recording(_ body: () async throws -> Void) async rethrows -> [Reported] {
    let collected = Collected()
    try await $recorder.withValue(collected.append) { try await body() }
    return collected.issues
  }

  /// The issues one ``recording(_:)`` collects, from whichever task reports them.
  private final class Collected: Sendable {
    private let lock = Lock<[Reported]>([])

    var issues: [Reported] { lock.withLock { $0 } }

    @Sendable func append(_ issue: Reported) { lock.withLock { $0.append(issue) } }
  }
}
