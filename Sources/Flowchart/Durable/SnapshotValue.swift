// A value sent to a waiting state and not yet taken, as a decoded snapshot holds it: the
// generic tree the encoder wrote (null, booleans, numbers, strings, arrays, objects), kept
// until the resumed run knows the type the state waits for and decodes the value from it
// (`SnapshotValueDecoder`). The core has no Foundation, so it keeps no encoded bytes: only
// this tree, which any `Decoder` can produce and any `Encoder` write again.

/// A self-describing value decoded from a snapshot.
enum SnapshotValue: Sendable, Hashable, Codable {
  case null
  case bool(Bool)
  case int(Int64)
  case double(Double)
  case string(String)
  case array([SnapshotValue])
  case object([String: SnapshotValue])

  init(from decoder: any Decoder) throws {
    let single = try decoder.singleValueContainer()
    if single.decodeNil() {
      self = .null
    } else if let value = try? single.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? single.decode(Int64.self) {
      self = .int(value)
    } else if let value = try? single.decode(Double.self) {
      self = .double(value)
    } else if let value = try? single.decode(String.self) {
      self = .string(value)
    } else if let value = try? single.decode([SnapshotValue].self) {
      self = .array(value)
    } else {
      self = .object(try single.decode([String: SnapshotValue].self))
    }
  }

  func encode(to encoder: any Encoder) throws {
    var single = encoder.singleValueContainer()
    switch self {
    case .null: try single.encodeNil()
    case .bool(let value): try single.encode(value)
    case .int(let value): try single.encode(value)
    case .double(let value): try single.encode(value)
    case .string(let value): try single.encode(value)
    case .array(let value): try single.encode(value)
    case .object(let value): try single.encode(value)
    }
  }

  /// Decodes a `T` from the tree.
  func decode<T: Decodable>(_ type: T.Type) throws -> T {
    try T(from: SnapshotValueDecoder(value: self, codingPath: []))
  }
}

/// A `Decoder` over a ``SnapshotValue``.
private struct SnapshotValueDecoder: Decoder {
  let value: SnapshotValue
  let codingPath: [any CodingKey]
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func mismatch(_ expected: String) -> DecodingError {
    .typeMismatch(
      Any.self,
      DecodingError.Context(
        codingPath: codingPath, debugDescription: "Expected \(expected), found \(value)."))
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    guard case .object(let object) = value else { throw mismatch("an object") }
    return KeyedDecodingContainer(Keyed<Key>(object: object, codingPath: codingPath))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    guard case .array(let array) = value else { throw mismatch("an array") }
    return Unkeyed(array: array, codingPath: codingPath)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(decoder: self) }

  struct Index: CodingKey {
    var stringValue: String { "\(intValue ?? 0)" }
    var intValue: Int?
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
  }

  struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: [String: SnapshotValue]
    let codingPath: [any CodingKey]
    var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

    func decoder(for key: Key) throws -> SnapshotValueDecoder {
      guard let value = object[key.stringValue] else {
        throw DecodingError.keyNotFound(
          key,
          DecodingError.Context(codingPath: codingPath, debugDescription: "No value for the key."))
      }
      return SnapshotValueDecoder(value: value, codingPath: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool {
      (object[key.stringValue] ?? .null) == .null
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
      try T(from: decoder(for: key))
    }

    func nestedContainer<NestedKey: CodingKey>(
      keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
      try decoder(for: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
      try decoder(for: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
      SnapshotValueDecoder(value: .object(object), codingPath: codingPath)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder { try decoder(for: key) }
  }

  struct Unkeyed: UnkeyedDecodingContainer {
    let array: [SnapshotValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0
    var count: Int? { array.count }
    var isAtEnd: Bool { currentIndex >= array.count }

    mutating func next() throws -> SnapshotValueDecoder {
      guard !isAtEnd else {
        throw DecodingError.valueNotFound(
          Any.self,
          DecodingError.Context(codingPath: codingPath, debugDescription: "The array has ended."))
      }
      defer { currentIndex += 1 }
      return SnapshotValueDecoder(
        value: array[currentIndex], codingPath: codingPath + [Index(currentIndex)])
    }

    mutating func decodeNil() throws -> Bool {
      guard !isAtEnd, array[currentIndex] == .null else { return false }
      currentIndex += 1
      return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: next()) }

    mutating func nestedContainer<NestedKey: CodingKey>(
      keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
      try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
      try next().unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { try next() }
  }

  struct Single: SingleValueDecodingContainer {
    let decoder: SnapshotValueDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.value == .null }

    func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
      switch decoder.value {
      case .int(let value):
        if let exact = T(exactly: value) { return exact }
      case .double(let value):
        if let exact = T(exactly: value) { return exact }
      case .null, .bool, .string, .array, .object: break
      }
      throw decoder.mismatch("\(T.self)")
    }

    func decode(_ type: Bool.Type) throws -> Bool {
      guard case .bool(let value) = decoder.value else { throw decoder.mismatch("a Bool") }
      return value
    }

    func decode(_ type: String.Type) throws -> String {
      guard case .string(let value) = decoder.value else { throw decoder.mismatch("a String") }
      return value
    }

    func decode(_ type: Double.Type) throws -> Double {
      switch decoder.value {
      case .double(let value): return value
      case .int(let value): return Double(value)
      case .null, .bool, .string, .array, .object: throw decoder.mismatch("a Double")
      }
    }

    func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }
    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: decoder) }
  }
}
