import Flowchart

/// Why a run store could not save, load, list or delete a run: names the file (or database)
/// and says what is wrong and what to do.
public struct RunStoreError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What went wrong, as a value tests and tools can match.
  public enum Kind: Hashable, Sendable {
    /// The file is not a run file: it does not start with `flowchart-run`.
    case notARunFile
    /// The file (or database) was written in format `version`, newer than this library
    /// reads.
    case newerFormat(version: Int)
    /// The file ends before its header or its snapshot does.
    case truncated
    /// The file or row is damaged: its header does not decode, its snapshot's checksum does
    /// not match, or it names another run than its file name.
    case corrupted
    /// A system call failed with `errno` `code`.
    case system(operation: String, code: Int32)
    /// SQLite returned the result code `code`.
    case database(code: Int32)
  }

  /// What went wrong.
  public var kind: Kind
  /// The file, directory or database concerned.
  public var path: String
  /// What is wrong and what to do, as sentences.
  public var message: String

  /// An error of `kind` about `path`.
  public init(_ kind: Kind, path: String, message: String) {
    self.kind = kind
    self.path = path
    self.message = message
  }

  /// `path: message`.
  public var description: String { "\(path): \(message)" }

  /// The error as a listing's problem.
  var problem: RunStoreProblem {
    RunStoreProblem(location: path, message: message)
  }
}
