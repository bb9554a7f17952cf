import FlowchartFiles

/// Where each task of an exported chart sends its state's work: the `Resource` (and the
/// `Parameters` around the state's input) of every `Task` the export writes.
///
/// Every task sends the same payload, which the entry point
/// ``StepFunctionsHandler/handle(_:)`` reads: the state's name and ID in the chart (`state`,
/// `stateID`), what to run (`step`: `state`, `merge` or `catch`, and `route` for a catch),
/// and the execution's JSON document as `context`. Choose a pattern for the states the table
/// does not name:
///
/// ```swift
/// // One Lambda function for the whole chart:
/// let resources = StepFunctionsResources(default: .function("arn:aws:lambda:eu-west-1:123456789012:function:health"))
/// // One function per state, named after it:
/// let perState = StepFunctionsResources(default: .functionPerState("arn:aws:lambda:eu-west-1:123456789012:function:health-{name}"))
/// ```
public struct StepFunctionsResources: Sendable, Hashable {
  /// How a task reaches the code of its state.
  public enum Pattern: Sendable, Hashable {
    /// The task invokes this resource (a Lambda function's or an activity's ARN), whatever
    /// its state: one function for the whole chart, which reads the state's name from its
    /// payload.
    case function(String)
    /// The task invokes the resource this pattern names, `{name}` replaced by the state's
    /// ASL name: one function per state.
    case functionPerState(String)
    /// The callback pattern: the task sends its payload and a task token to this Amazon SQS
    /// queue (`arn:aws:states:::sqs:sendMessage.waitForTaskToken`), and waits until a worker
    /// answers with `SendTaskSuccess` or `SendTaskFailure`.
    case queue(url: String)
  }

  /// The pattern for every state the table does not name.
  public var `default`: Pattern
  /// The pattern of a state, by its name in the chart; it wins over ``default``.
  public var byState: [String: Pattern]

  /// The patterns `byState`, and `default` for every other state.
  public init(default: Pattern, byState: [String: Pattern] = [:]) {
    self.default = `default`
    self.byState = byState
  }

  /// The callback pattern over a queue named `flowchart`, as the CI harness runs it.
  public static let localQueue = StepFunctionsResources(
    default: .queue(url: "https://sqs.us-east-1.amazonaws.com/123456789012/flowchart"))

  /// The pattern of the state named `name`.
  func pattern(for name: String) -> Pattern { byState[name] ?? self.default }

  /// Reads a resource table, a JSON object: `"default"` and the states' names, each mapped
  /// to a function ARN (`{name}` in it is a state's ASL name) or to `{"queue": "url"}`.
  ///
  /// ```json
  /// {"default": "arn:aws:lambda:eu-west-1:123456789012:function:health",
  ///  "Do sit-ups": {"queue": "https://sqs.eu-west-1.amazonaws.com/123456789012/slow"}}
  /// ```
  ///
  /// - Throws: A ``StepFunctionsResources/TableError`` naming the entry that is not a string
  ///   or a queue.
  public init(table: ChartValue) throws(TableError) {
    guard case .object(let entries) = table else {
      throw TableError(message: "A resource table is a JSON object, not \(table.typeName).")
    }
    var patterns: [String: Pattern] = [:]
    for (name, value) in entries {
      switch value {
      case .string(let arn):
        patterns[name] = arn.contains("{name}") ? .functionPerState(arn) : .function(arn)
      case .object(let fields):
        guard fields.count == 1, case .string(let url)? = fields["queue"] else { fallthrough }
        patterns[name] = .queue(url: url)
      case .null, .bool, .number, .array:
        throw TableError(
          message:
            "The resource of '\(name)' is \(value.typeName): write a function ARN as a string, or {\"queue\": \"url\"}."
        )
      }
    }
    let fallback =
      patterns.removeValue(forKey: "default") ?? StepFunctionsResources.localQueue.default
    self.init(default: fallback, byState: patterns)
  }

  /// Why a resource table cannot be read: a sentence that names the entry.
  public struct TableError: Error, Sendable, CustomStringConvertible {
    /// The sentence.
    public let message: String
    /// The sentence.
    public var description: String { message }
  }
}
