import Flowchart

extension ChartValue {
  /// Parses JSON text (RFC 8259) as a value: `true` and `false` are Booleans, numbers
  /// `Double`s.
  ///
  /// ```swift
  /// let answers = try ChartValue(jsonText: #"{"age": 42, "tags": ["a"]}"#)
  /// answers[path: "tags.0"]  // "a"
  /// ```
  ///
  /// - Throws: A ``JSONError`` saying what is wrong and where: text that is not JSON, an
  ///   object with a key twice, a number too large for a `Double`, or arrays and objects
  ///   nested more than 512 levels deep. Its message never quotes the text.
  public init(jsonText text: String) throws(JSONError) {
    do throws(SyntaxError) {
      self = try JSONReader.value(Array(text.utf8), path: "", subject: "value")
    } catch {
      throw JSONError(
        message: error.message, line: error.location.line, column: error.location.column ?? 1)
    }
  }

  /// Why a text is not a JSON value, and where.
  public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, as a sentence.
    public var message: String
    /// The line where it is wrong, from 1.
    public var line: Int
    /// The column where it is wrong, from 1, in Unicode scalars.
    public var column: Int

    /// Creates the error `message` at `line` and `column`.
    package init(message: String, line: Int, column: Int) {
      self.message = message
      self.line = line
      self.column = column
    }

    /// The message, then where: `… (line 1, column 5)`; a message that ends in a period
    /// keeps it after the place.
    public var description: String {
      var text = message
      let period = text.hasSuffix(".")
      if period { text.removeLast() }
      return "\(text) (line \(line), column \(column))" + (period ? "." : "")
    }
  }
}
