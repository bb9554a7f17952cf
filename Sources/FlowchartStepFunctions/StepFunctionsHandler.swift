import Flowchart
import FlowchartFiles
import Foundation

/// How a chart's context travels as the execution's JSON document.
public struct ContextCoding<Context: Sendable>: Sendable {
  /// The context as JSON.
  public let encode: @Sendable (Context) throws -> ChartValue
  /// The context read from JSON.
  public let decode: @Sendable (ChartValue) throws -> Context

  /// A coding of your own.
  public init(
    encode: @escaping @Sendable (Context) throws -> ChartValue,
    decode: @escaping @Sendable (ChartValue) throws -> Context
  ) {
    self.encode = encode
    self.decode = decode
  }
}

extension ContextCoding where Context == ChartValue {
  /// A chart file's data, which is JSON already.
  public static var json: ContextCoding<ChartValue> {
    ContextCoding(encode: { $0 }, decode: { $0 })
  }
}

extension ContextCoding where Context: Codable {
  /// A `Codable` context, through `JSONEncoder` and `JSONDecoder`.
  public static var codable: ContextCoding<Context> {
    ContextCoding(
      encode: { context in
        let data = try JSONEncoder().encode(context)
        return try ChartValue(jsonText: String(decoding: data, as: UTF8.self))
      },
      decode: { value in try JSONDecoder().decode(Context.self, from: Data(value.jsonText.utf8)) })
  }
}

extension ContextCoding {
  /// The coding of a map's elements, found from their type: a chart file's `ChartValue`, or
  /// a `Codable` type; `nil` for other types, whose maps the export runs in one task.
  static var elements: ContextCoding<Context>? {
    if Context.self == ChartValue.self {
      return ContextCoding(
        encode: { value in
          guard let json = value as? ChartValue else { throw ElementCodingError() }
          return json
        },
        decode: { json in
          guard let value = json as? Context else { throw ElementCodingError() }
          return value
        })
    }
    guard Context.self is any Decodable.Type, Context.self is any Encodable.Type else {
      return nil
    }
    return ContextCoding(
      encode: { value in
        guard let encodable = value as? any Encodable else { throw ElementCodingError() }
        let data = try JSONEncoder().encode(encodable)
        return try ChartValue(jsonText: String(decoding: data, as: UTF8.self))
      },
      decode: { json in
        guard let decodable = Context.self as? any Decodable.Type else {
          throw ElementCodingError()
        }
        let value = try JSONDecoder().decode(decodable, from: Data(json.jsonText.utf8))
        guard let element = value as? Context else { throw ElementCodingError() }
        return element
      })
  }
}

/// A map's element that is not of the type its coding was found for.
private struct ElementCodingError: Error, CustomStringConvertible {
  var description: String { "A map's element is not of its element chart's type." }
}

/// Why a task failed: what a worker answers with `SendTaskFailure` (or a Lambda function
/// throws), its ``error`` matched by the definition's `Retry` and `Catch`.
public struct StepFunctionsTaskError: Error, Sendable, CustomStringConvertible {
  /// The error's name: the Swift type of what the state's code threw (`States.Timeout` for
  /// a `StateTimeoutError`), or `Flowchart.BadPayload` when the payload is not
  /// one the exported definition sends.
  public let error: String
  /// What went wrong, in words.
  public let cause: String

  /// `error: cause`.
  public var description: String { "\(error): \(cause)" }
}

/// The entry point of an exported chart's tasks: runs one state of the chart on the
/// execution's JSON document and returns the new document and the exit it took.
///
/// A Lambda function, an activity worker or a queue consumer calls ``handle(_:)`` with the
/// payload its task sent (`{"state": …, "stateID": …, "step": …, "context": …}`) and answers
/// with what it returns, `{"context": …, "exit": …}`, or with the error it throws:
///
/// ```swift
/// let handler = StepFunctionsHandler(chart: health, coding: .codable)
/// let answer = try await handler.handle(payload)  // {"context": {...}, "exit": "yes"}
/// ```
public struct StepFunctionsHandler<Context: Sendable>: Sendable {
  /// The chart the definition was exported from.
  public let chart: Flowchart<Context>
  /// How the context travels.
  public let coding: ContextCoding<Context>

  /// Reads the value a waiting state's payload carries as `input`.
  public let decodeInput: @Sendable (ChartValue) throws -> any Sendable

  /// A handler for the tasks of `chart`'s definition.
  ///
  /// - Parameters:
  ///   - chart: The chart the definition was exported from.
  ///   - coding: How the context travels.
  ///   - decodeInput: Reads the value sent to a waiting state, which a payload carries as
  ///     `input`; by default the JSON value itself, what a chart file's waits take.
  public init(
    chart: Flowchart<Context>, coding: ContextCoding<Context>,
    decodeInput: @escaping @Sendable (ChartValue) throws -> any Sendable = { $0 }
  ) {
    self.chart = chart
    self.coding = coding
    self.decodeInput = decodeInput
  }

  /// Runs what `payload` asks: a state's code (`step` `state`; a waiting state applies the
  /// payload's `input`), a dispatch's merge over the contexts its `Parallel` left (`merge`),
  /// or a catch route's handler over the error its `Catch` left (`catch`).
  ///
  /// - Returns: `{"context": the new context, "exit": the exit taken}`: `yes`, `no`, a key's
  ///   text, `default` or `next`, `end` with `"decision"` when a final state ended, or
  ///   `catch1`, `catch2`, … when the state's code threw an error that catch route takes
  ///   (its handler run on the payload's context, the one before the first attempt).
  /// - Throws: A ``StepFunctionsTaskError``: `Flowchart.Retry` when the state's retry takes
  ///   the error and the payload's `retryCount` leaves attempts, else the error's type name
  ///   when no catch route takes it; or the payload is not one the definition sends.
  public func handle(_ payload: ChartValue) async throws(StepFunctionsTaskError) -> ChartValue {
    if case .array(let path)? = payload[path: "nested"], let first = path.first {
      // A state of a map's element chart or a subflow's chart: that chart's handler answers.
      guard case .number(let index) = first, chart.states.contains(StateID(Int(index))),
        let nested = nestedChart(of: StateID(Int(index)))
      else {
        throw badPayload(
          "names the map or subflow \(first.jsonText), which this chart does not have as one whose chart's context travels as JSON: deploy the handler with the chart the definition was exported from"
        )
      }
      guard case .object(var fields) = payload else { throw badPayload("is not an object") }
      fields["nested"] = path.count > 1 ? .array(Array(path.dropFirst())) : nil
      if path.count == 1 { fields.removeValue(forKey: "nested") }
      return try await nested.handle(.object(fields))
    }
    let state = try self.state(of: payload)
    guard let sent = payload[path: "context"] else {
      throw badPayload(
        "has no \"context\": the exported definition sends the document as \"context\"")
    }
    let step = payload[path: "step"] ?? "state"
    // A state's code takes any JSON (a map's element, a subflow's part of the context); the
    // other steps read fields the definition adds to an object.
    var document: [String: ChartValue] = [:]
    if case .object(let fields) = sent {
      document = fields
    } else if step != "state" {
      throw badPayload(
        "has no \"context\" object for step \(step.jsonText): the exported definition sends the document as \"context\""
      )
    }
    do {
      switch step {
      case "state":
        var context = try coding.decode(sent)
        // A waiting state's value, sent from outside with the task's payload.
        let input = try payload[path: "input"].map(decodeInput)
        if input == nil, chart[state].kind == .waiting {
          throw badPayload(
            "is for waiting state '\(chart[state].name)' and carries no \"input\": whoever sends the state its value adds it to the payload as \"input\" and calls the handler"
          )
        }
        let step: ExportedStep
        do {
          step = try await chart.runState(state, context: &context, input: input)
        } catch {
          return try failed(state, with: error, document: sent, payload: payload)
        }
        switch step {
        case .exit(let index):
          let label = chart[state].exits[index].label
          return [
            "context": try coding.encode(context), "exit": .string(label.key ?? label.description),
          ]
        case .ended(let decision):
          return [
            "context": try coding.encode(context), "exit": "end",
            "decision": .string(decision.description),
          ]
        }
      case "enter":
        let context = try coding.decode(.object(document))
        let coding = try nestedCoding(of: state)
        return ["inner": try coding.encode(try chart.subflowEnter(of: state, context: context))]
      case "leave":
        guard case .array(let ends)? = document.removeValue(forKey: "flowchartInner"),
          let end = ends.first, let inner = end[path: "context"],
          case .number(let finalState)? = end[path: "finalState"]
        else {
          throw badPayload(
            "asks for a subflow's leave without its chart's end in \"flowchartInner\"")
        }
        var context = try self.coding.decode(.object(document))
        let coding = try nestedCoding(of: state)
        let step = try chart.subflowLeave(
          of: state, context: &context, inner: try coding.decode(inner),
          finalState: Int(finalState), decision: end[path: "decision"]?.keyText ?? "done")
        switch step {
        case .exit(let index):
          let label = chart[state].exits[index].label
          return [
            "context": try self.coding.encode(context),
            "exit": .string(label.key ?? label.description),
          ]
        case .ended(let decision):
          return [
            "context": try self.coding.encode(context), "exit": "end",
            "decision": .string(decision.description),
          ]
        }
      case "items":
        let context = try coding.decode(.object(document))
        let coding = try nestedCoding(of: state)
        let elements = try chart.mapElements(ofMap: state, context: context)
        return ["items": .array(try elements.map(coding.encode))]
      case "collect":
        guard case .array(let outputs)? = document.removeValue(forKey: "flowchartItems") else {
          throw badPayload(
            "asks for a map's collect without the element runs' contexts in \"flowchartItems\"")
        }
        var context = try coding.decode(.object(document))
        let coding = try nestedCoding(of: state)
        try chart.collectMap(
          ofMap: state, context: &context, outputs: try outputs.map(coding.decode))
        return ["context": try self.coding.encode(context), "exit": "next"]
      case "merge":
        guard case .array(let branches)? = document.removeValue(forKey: "flowchartBranches") else {
          throw badPayload(
            "asks for a merge without the branches' contexts in \"flowchartBranches\"")
        }
        let original = try coding.decode(.object(document))
        let merged = try chart.mergeBranches(
          ofDispatch: state, try branches.map(coding.decode), original: original)
        return ["context": try coding.encode(merged), "exit": "next"]
      case "catch":
        guard case .number(let route)? = payload[path: "route"] else {
          throw badPayload("asks for a catch route without its \"route\" number")
        }
        let failure = document.removeValue(forKey: "flowchartError")
        let name = failure?[path: "Error"]?.keyText ?? "States.ALL"
        // The Catch takes the timeouts only: the handler answers the other errors itself.
        var error: any Error = CaughtTaskError(
          name: name, cause: failure?[path: "Cause"]?.keyText ?? "")
        if name == "States.Timeout", let timeout = chart.exportedTimeoutError(of: state) {
          error = timeout
        }
        var context = try coding.decode(.object(document))
        chart.runCatchHandler(of: state, route: Int(route), context: &context, error: error)
        return ["context": try coding.encode(context), "exit": "next"]
      default:
        throw badPayload(
          "asks for step \(step.jsonText): the steps are \"state\", \"merge\", \"catch\", \"items\", \"collect\", \"enter\" and \"leave\""
        )
      }
    } catch let error as StepFunctionsTaskError {
      throw error
    } catch {
      throw StepFunctionsTaskError(error: Self.name(of: error), cause: "\(error)")
    }
  }

  /// What a task answers when the code of `state` threw `error`: the state's own retry
  /// and catch filters decide, run on the Swift error itself. An error the retry takes, with
  /// attempts left (the payload's `retryCount`, `$$.State.RetryCount`), fails the task as
  /// `Flowchart.Retry`, which the definition's `Retry` matches; then an error a catch route
  /// takes runs the route's handler on the task's input (the context before the first
  /// attempt) and answers `{"context": …, "exit": "catch1"}` (the route's position), which
  /// the definition's `Choice` sends to the route's target; any other error fails the task
  /// with its type's name.
  private func failed(
    _ state: StateID, with error: any Error, document: ChartValue, payload: ChartValue
  ) throws -> ChartValue {
    if let error = error as? StepFunctionsTaskError { throw error }
    let route = chart.exportedFailureRoute(of: state, error: error)
    if route.retries, let count = chart.exportedModifiers(of: state)?.retry?.count {
      let retried = payload[path: "retryCount"].flatMap { value -> Int? in
        guard case .number(let number) = value else { return nil }
        return Int(number)
      }
      if retried.map({ $0 < count }) ?? true {
        throw StepFunctionsTaskError(error: Self.retryError, cause: "\(error)")
      }
    }
    if let index = route.catchRoute {
      var context = try coding.decode(document)
      chart.runCatchHandler(of: state, route: index, context: &context, error: error)
      return ["context": try coding.encode(context), "exit": .string("catch\(index + 1)")]
    }
    throw StepFunctionsTaskError(error: Self.name(of: error), cause: "\(error)")
  }

  /// The handler of the element chart of the map `state`, or of the chart of the subflow
  /// `state`, whose context travels as JSON.
  private func nestedChart(of state: StateID) -> ElementHandler? {
    let maker = ElementHandlerMaker(decodeInput: decodeInput)
    if let map = chart.visitElementChart(ofMap: state, maker) { return map }
    return chart.visitSubflowChart(of: state, maker) ?? nil
  }

  /// The coding of the contexts of the chart the map or subflow `state` runs.
  private func nestedCoding(of state: StateID) throws(StepFunctionsTaskError) -> ElementHandler {
    guard let nested = nestedChart(of: state) else {
      throw badPayload(
        "asks for the chart of '\(chart[state].name)', which is not a map or subflow whose chart's context travels as JSON"
      )
    }
    return nested
  }

  /// The error name of a failed attempt the state's retry takes.
  static var retryError: String { "Flowchart.Retry" }

  /// The state `payload` names, checked against the chart.
  private func state(of payload: ChartValue) throws(StepFunctionsTaskError) -> StateID {
    guard case .string(let name)? = payload[path: "state"] else {
      throw badPayload("names no \"state\"")
    }
    if case .number(let number)? = payload[path: "stateID"] {
      let id = StateID(Int(number))
      guard chart.states.contains(id), chart[id].name == name else {
        throw badPayload(
          "names state '\(name)' as \(id), which this chart does not have: deploy the handler with the chart the definition was exported from"
        )
      }
      return id
    }
    guard let id = chart.state(named: name) else {
      throw badPayload("names state '\(name)', which is not one state of this chart")
    }
    return id
  }

  private func badPayload(_ reason: String) -> StepFunctionsTaskError {
    StepFunctionsTaskError(error: "Flowchart.BadPayload", cause: "The task's payload \(reason).")
  }

  /// The ASL error name of what a state's code threw: its type's name.
  static func name(of error: any Error) -> String {
    if error is StateTimeoutError { return "States.Timeout" }
    if let failure = error as? StepFunctionsTaskError { return failure.error }
    return String(describing: type(of: error))
  }
}

/// The error a catch route's handler is given: the one the task failed with, by its name and
/// cause, as the `Catch` left them.
struct CaughtTaskError: Error, CustomStringConvertible {
  var name: String
  var cause: String
  var description: String { cause }
}

/// A map's element chart's handler and coding, whatever the element type.
private struct ElementHandler: Sendable {
  let encode: @Sendable (any Sendable) throws -> ChartValue
  let decode: @Sendable (ChartValue) throws -> any Sendable
  let handle: @Sendable (ChartValue) async throws(StepFunctionsTaskError) -> ChartValue
}

/// Makes the ``ElementHandler`` of a map's element chart.
private struct ElementHandlerMaker: ExportedChartVisitor {
  let decodeInput: @Sendable (ChartValue) throws -> any Sendable

  func visit<Element: Sendable>(_ chart: Flowchart<Element>) -> ElementHandler? {
    guard let coding = ContextCoding<Element>.elements else { return nil }
    let handler = StepFunctionsHandler(chart: chart, coding: coding, decodeInput: decodeInput)
    return ElementHandler(
      encode: { value in
        guard let element = value as? Element else { throw ElementCodingError() }
        return try coding.encode(element)
      },
      decode: { json in try coding.decode(json) },
      handle: { payload async throws(StepFunctionsTaskError) in try await handler.handle(payload) })
  }
}
