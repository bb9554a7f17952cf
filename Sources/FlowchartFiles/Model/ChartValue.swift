/// A JSON-like value: the context of a chart that needs no Swift, and the values a chart file
/// compares and stores.
///
/// A data-only chart runs on a `Flowchart<ChartValue>`: its built-in conditions read values
/// by path, and its `storeValue` actions write them.
///
/// ```swift
/// var answers: ChartValue = ["age": 42, "plan": "pro", "tags": ["a", "b"]]
/// answers[path: "plan"]  // "pro"
/// answers[path: "tags.1"]  // "b"
/// answers[path: "address.city"] = "Lyon"  // creates "address"
/// ```
///
/// Numbers are `Double`s, as in JavaScript: integers are exact up to 2^53.
public enum ChartValue: Hashable, Sendable {
  /// JSON's `null`.
  case null
  /// `true` or `false`.
  case bool(Bool)
  /// A number.
  case number(Double)
  /// A string.
  case string(String)
  /// An array of values.
  case array([ChartValue])
  /// An object: values by key. Written with its keys sorted.
  case object([String: ChartValue])
}

extension ChartValue {
  /// The value at `path`, or `nil` when the path leads nowhere.
  ///
  /// A path is keys separated by dots, `answers.plan`; a key that is a number indexes an
  /// array, `items.0.name`. The empty path is the value itself. Setting a value creates the
  /// objects the path needs (an index past an array's end pads it with `null`); setting `nil`
  /// removes the key.
  ///
  /// - Complexity: O(*d*) in the path's depth, plus the copy of each container written.
  public subscript(path path: String) -> ChartValue? {
    get {
      var value = self
      for key in Self.keys(of: path) {
        guard let next = value.child(key) else { return nil }
        value = next
      }
      return value
    }
    set {
      let keys = Self.keys(of: path)
      guard !keys.isEmpty else {
        self = newValue ?? .null
        return
      }
      Self.set(&self, keys[...], to: newValue)
    }
  }

  /// The keys of `path`, in order; none for the empty path.
  static func keys(of path: String) -> [Substring] {
    path.isEmpty ? [] : path.split(separator: ".", omittingEmptySubsequences: false)
  }

  private func child(_ key: Substring) -> ChartValue? {
    switch self {
    case .object(let members): return members[String(key)]
    case .array(let elements):
      guard let index = Int(key), elements.indices.contains(index) else { return nil }
      return elements[index]
    case .null, .bool, .number, .string: return nil
    }
  }

  private static func set(
    _ value: inout ChartValue, _ keys: ArraySlice<Substring>, to newValue: ChartValue?
  ) {
    guard let key = keys.first else {
      value = newValue ?? .null
      return
    }
    let rest = keys.dropFirst()
    if case .array(var elements) = value, let index = Int(key), index >= 0, index < 1 << 20 {
      value = .null  // so that `elements` is the only reference, and changes in place
      if index >= elements.count {
        guard newValue != nil || !rest.isEmpty else {
          value = .array(elements)
          return
        }
        elements.append(contentsOf: repeatElement(.null, count: index + 1 - elements.count))
      }
      if rest.isEmpty, newValue == nil {
        elements[index] = .null
      } else {
        set(&elements[index], rest, to: newValue)
      }
      value = .array(elements)
      return
    }
    var members: [String: ChartValue]
    if case .object(let existing) = value { members = existing } else { members = [:] }
    value = .null
    if rest.isEmpty {
      members[String(key)] = newValue
    } else {
      var child = members.removeValue(forKey: String(key)) ?? .object([:])
      set(&child, rest, to: newValue)
      members[String(key)] = child
    }
    value = .object(members)
  }

  /// The value's type in words, for messages: `null`, `boolean`, `number`, …
  public var typeName: String {
    switch self {
    case .null: "null"
    case .bool: "boolean"
    case .number: "number"
    case .string: "string"
    case .array: "array"
    case .object: "object"
    }
  }

  /// The value as a multiple condition's key: a string as it is, anything else as JSON text.
  public var keyText: String {
    if case .string(let text) = self { return text }
    return jsonText
  }
}

extension ChartValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral,
  ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral,
  ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
  /// `null`.
  public init(nilLiteral: ()) { self = .null }
  /// A boolean.
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  /// A number.
  public init(integerLiteral value: Int) { self = .number(Double(value)) }
  /// A number.
  public init(floatLiteral value: Double) { self = .number(value) }
  /// A string.
  public init(stringLiteral value: String) { self = .string(value) }
  /// An array.
  public init(arrayLiteral elements: ChartValue...) { self = .array(elements) }
  /// An object. A key given twice keeps its last value.
  public init(dictionaryLiteral elements: (String, ChartValue)...) {
    self = .object(Dictionary(elements, uniquingKeysWith: { $1 }))
  }
}

extension ChartValue: CustomStringConvertible {
  /// The value as compact JSON text.
  public var description: String { jsonText }
}
