/// The name of one run, unique in its store: what a durable run is saved, listed, loaded and
/// sent to by, in this process or another.
///
/// A new run gets a random one (``init()``, 122 random bits written like a UUID:
/// `3f2b8c1e-5d4a-4f6b-9c2d-7e8f9a0b1c2d`); give your own when the run has a natural name,
/// such as an order number (``init(_:)``). An id is 1 to 128 characters of ASCII letters,
/// digits, `.`, `_` and `-`, not starting with `.`, so that it is also a valid file name
/// everywhere.
public struct RunID: Hashable, Comparable, Sendable, CustomStringConvertible,
  LosslessStringConvertible
{
  /// The id's text.
  public let text: String

  /// A new random id, written like a version 4 UUID.
  public init() {
    var generator = SystemRandomNumberGenerator()
    self.init(random: &generator)
  }

  /// A new random id from `generator`, written like a version 4 UUID: for tests that want
  /// the same ids on every run, with a seeded generator.
  public init(random generator: inout some RandomNumberGenerator) {
    var bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    bytes[6] = bytes[6] & 0x0F | 0x40
    bytes[8] = bytes[8] & 0x3F | 0x80
    let hex = bytes.map { byte in
      let digits = String(byte, radix: 16)
      return digits.count == 1 ? "0" + digits : digits
    }
    let groups = [0..<4, 4..<6, 6..<8, 8..<10, 10..<16].map { hex[$0].joined() }
    text = groups.joined(separator: "-")
  }

  /// The id `text`, or `nil` when it is not 1 to 128 characters of ASCII letters, digits,
  /// `.`, `_` and `-` starting with something other than `.`; ``problem(with:)`` says which.
  public init?(_ text: String) {
    guard Self.problem(with: text) == nil else { return nil }
    self.text = text
  }

  /// Why `text` is not a run id, as a sentence; `nil` when it is one.
  public static func problem(with text: String) -> String? {
    let utf8 = text.utf8
    if utf8.isEmpty { return "A run id cannot be empty." }
    if utf8.count > 128 {
      return "A run id has at most 128 characters; '\(text.prefix(20))…' has \(utf8.count)."
    }
    if utf8.first == UInt8(ascii: ".") {
      return "A run id cannot start with '.': '\(text)'."
    }
    for byte in utf8 where !Self.allows(byte) {
      let character = byte < 0x80 ? "'\(Character(Unicode.Scalar(byte)))'" : "a non-ASCII character"
      return
        "A run id is made of ASCII letters, digits, '.', '_' and '-'; '\(text)' has \(character)."
    }
    return nil
  }

  private static func allows(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"),
      UInt8(ascii: "-"):
      true
    default: false
    }
  }

  /// The id's text.
  public var description: String { text }

  /// Orders ids by their text.
  public static func < (lhs: RunID, rhs: RunID) -> Bool { lhs.text < rhs.text }
}

extension RunID: Codable {
  /// Decodes an id from its text.
  ///
  /// - Throws: `DecodingError.dataCorrupted`, with ``problem(with:)``'s sentence, when the
  ///   text is not a run id.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    if let problem = Self.problem(with: text) {
      throw DecodingError.dataCorruptedError(in: container, debugDescription: problem)
    }
    self.text = text
  }

  /// Encodes the id as its text.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(text)
  }
}
