import Flowchart
import Foundation

/// Why a typed snapshot could not be saved to a store or loaded from it: names the run and
/// says what is wrong and what to do.
public struct StoredSnapshotError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What went wrong, as a value tests and tools can match.
  public enum Kind: Hashable, Sendable {
    /// The store holds no run under the id.
    case noRun
    /// The stored run is a run of the chart `stored`, not of the one asked for.
    case otherChart(stored: String)
    /// The stored snapshot does not decode: the decoder's message is in the error's
    /// ``StoredSnapshotError/message``.
    case undecodable
    /// The snapshot does not encode (a value waiting for a state is not `Encodable`).
    case unencodable
  }

  /// What went wrong.
  public var kind: Kind
  /// The run concerned.
  public var id: RunID
  /// What is wrong and what to do, as sentences.
  public var message: String

  /// An error of `kind` about the run `id`.
  public init(_ kind: Kind, id: RunID, message: String) {
    self.kind = kind
    self.id = id
    self.message = message
  }

  /// The message.
  public var description: String { message }
}

extension RunStore {
  /// Saves `snapshot` under its id, encoded as JSON, with the summary it carries
  /// (`RunSnapshot.summary`): its status, its chart's identity and fingerprint, and when it
  /// was made. Replaces what was saved under the id before, atomically.
  ///
  /// - Throws: A `StoredSnapshotError` of kind `unencodable`
  ///   when the snapshot does not encode; the store's own error when it cannot save.
  public func save<Context: Encodable>(_ snapshot: RunSnapshot<Context>) async throws {
    let run: StoredRun
    do {
      run = try snapshot.storedRun(encodedWith: Self.encode)
    } catch {
      throw StoredSnapshotError(
        .unencodable, id: snapshot.id,
        message:
          "Run '\(snapshot.id)' cannot be saved: its snapshot does not encode: \(describe(error))"
      )
    }
    try await save(run)
  }

  /// The snapshot saved under `id`, decoded with a context of type `Context`.
  ///
  /// - Parameters:
  ///   - id: The run's id.
  ///   - context: The type of the run's context.
  ///   - chart: The identity of the chart the run must be of; `nil` takes a run of any
  ///     chart. A run saved without an identity matches any.
  /// - Throws: A `StoredSnapshotError`: of kind `noRun` when the store holds no run under
  ///   `id`, `otherChart(stored:)` when the run is of another chart, `undecodable` (with the decoder's
  ///   message) when its snapshot does not decode; the store's own error when it cannot
  ///   read the run.
  public func snapshot<Context: Decodable>(
    _ id: RunID, as context: Context.Type = Context.self, chart: String? = nil
  ) async throws -> RunSnapshot<Context> {
    guard let run = try await load(id) else {
      throw StoredSnapshotError(
        .noRun, id: id,
        message:
          "No run '\(id)' in the store: list its runs (`store.list()`, or `flowchart runs <directory>`) for the ids it holds."
      )
    }
    if let chart, !run.summary.chart.isEmpty, run.summary.chart != chart {
      throw StoredSnapshotError(
        .otherChart(stored: run.summary.chart), id: id,
        message:
          "Run '\(id)' is a run of chart '\(run.summary.chart)', not of '\(chart)': resume it with the chart it was started with."
      )
    }
    do {
      return try JSONDecoder().decode(RunSnapshot<Context>.self, from: Data(run.snapshot))
    } catch {
      throw StoredSnapshotError(
        .undecodable, id: id,
        message:
          "Run '\(id)' has a snapshot that does not decode as a run of \(Context.self): \(describe(error))"
      )
    }
  }

  /// The JSON encoding of `snapshot`, with sorted keys so that equal snapshots are equal
  /// bytes.
  static func encode<Context: Encodable>(_ snapshot: RunSnapshot<Context>) throws -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return Array(try encoder.encode(snapshot))
  }
}

/// An encoding or decoding error's message, with where it happened: what the error's
/// description buries under its type's fields.
func describe(_ error: any Error) -> String {
  func path(_ keys: [any CodingKey]) -> String {
    keys.isEmpty
      ? ""
      : " (at "
        + keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".") + ")"
  }
  switch error {
  case let error as DecodingError:
    switch error {
    case .dataCorrupted(let context):
      let underlying = (context.underlyingError as NSError?)?.userInfo["NSDebugDescription"]
      return context.debugDescription + path(context.codingPath)
        + (underlying.map { " \($0)" } ?? "")
    case .keyNotFound(let key, let context):
      return "the key '\(key.stringValue)' is missing\(path(context.codingPath))."
    case .typeMismatch(let type, let context):
      return "\(context.debugDescription)\(path(context.codingPath)) (\(type) expected)"
    case .valueNotFound(let type, let context):
      return "a \(type) is null\(path(context.codingPath))."
    @unknown default:
      return "\(error)"
    }
  case let error as EncodingError:
    switch error {
    case .invalidValue(_, let context):
      return context.debugDescription + path(context.codingPath)
    @unknown default:
      return "\(error)"
    }
  default:
    return "\(error)"
  }
}
