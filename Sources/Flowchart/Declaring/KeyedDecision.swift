/// A multiple condition's decision and exits with the key type erased, so the compiler can
/// treat every multiple condition alike.
///
/// Everything that needs the key type — duplicate keys, missing enum cases, the lookup
/// from key to exit — is worked out here, while the type is still known.
@usableFromInline
struct KeyedDecision: Sendable {
  /// One declared exit, in declaration order.
  struct Exit: Sendable {
    /// The key's text (``DisplayText/key(_:)``), or `nil` for the default exit.
    var label: String?
    var location: SourceLocation
    var body: [DeclarationNode]
  }

  /// An exit that cannot be told from an earlier one: the later exit's index and the first
  /// one's.
  struct DuplicateKey: Sendable {
    /// Why the two exits cannot be told apart.
    enum Reason: Equatable, Sendable {
      /// The same key (equal under `==`), or a second ``Default``.
      case sameKey
      /// Two keys that are not equal (a custom `description`, `Double.nan` twice) but
      /// whose texts are: the tree, errors and ``Exit/Label`` could not tell them apart.
      case sameText
    }

    var index: Int
    var firstIndex: Int
    var reason: Reason = .sameKey
  }

  /// The decision as the user wrote it.
  enum Decide<Context: Sendable, Key: Sendable>: Sendable {
    case synchronous(@Sendable (inout Context) throws -> Key)
    case asynchronous(@Sendable (inout Context) async throws -> Key)
  }

  var exits: [Exit]
  var duplicateKeys: [DuplicateKey]
  /// The keys with no exit, as messages show them (`.case` for an enum case, a quoted
  /// name for a subflow's final state), when every possible key is known and there is no
  /// default exit; empty otherwise.
  var missingCases: [String]
  var isAsynchronous: Bool
  /// Makes the code of a non-final state, given the target of each exit (in the order of
  /// `exits`).
  var makeSelector: @Sendable (_ targets: [Int32]) -> DeclaredCode
  /// Makes the code of a final state, which reports its key.
  var makeFinalDecision: @Sendable () -> DeclaredCode

  /// - Parameter possibleKeys: Every key `decide` can return, when they are known
  ///   otherwise than from a `CaseIterable` key type, with the text a message shows for a
  ///   missing one.
  init<Context: Sendable, Key: Hashable & Sendable>(
    _ decide: Decide<Context, Key>, exits declared: [KeyedExit<Context, Key>],
    possibleKeys: [(key: Key, text: String)]? = nil
  ) {
    exits = declared.map {
      Exit(
        label: $0.key.map { DisplayText.key($0) }, location: $0.location,
        body: Declaration.nodes(of: $0.body))
    }
    var firstIndexOfKey: [Key: Int] = [:]
    var firstIndexOfText: [String: Int] = [:]
    var firstDefault: Int?
    var duplicates: [DuplicateKey] = []
    for (index, exit) in declared.enumerated() {
      if let key = exit.key {
        let text = exits[index].label ?? ""
        if let first = firstIndexOfKey[key] {
          duplicates.append(DuplicateKey(index: index, firstIndex: first))
        } else if let first = firstIndexOfText[text] {
          duplicates.append(DuplicateKey(index: index, firstIndex: first, reason: .sameText))
        } else {
          firstIndexOfKey[key] = index
          firstIndexOfText[text] = index
        }
      } else if let first = firstDefault {
        duplicates.append(DuplicateKey(index: index, firstIndex: first))
      } else {
        firstDefault = index
      }
    }
    duplicateKeys = duplicates
    if firstDefault == nil, !declared.isEmpty, let possibleKeys {
      missingCases = possibleKeys.filter { firstIndexOfKey[$0.key] == nil }.map(\.text)
    } else if firstDefault == nil, !declared.isEmpty, let cases = allCases(of: Key.self) {
      missingCases = cases.filter { firstIndexOfKey[$0] == nil }.map {
        let text = DisplayText.key($0)
        return text.hasPrefix("\"") ? text : ".\(text)"
      }
    } else {
      missingCases = []
    }

    // Keys and default in declaration order; duplicates are errors, so never compiled.
    let keyIndices = declared.indices.filter { declared[$0].key != nil }
    let keys = keyIndices.compactMap { declared[$0].key }
    let defaultIndex = firstDefault
    @Sendable func lookup(_ targets: [Int32]) -> KeyLookup<Key> {
      KeyLookup(
        keys: keys, targets: keyIndices.map { targets[$0] },
        default: defaultIndex.map { targets[$0] })
    }
    switch decide {
    case .synchronous(let decide):
      isAsynchronous = false
      makeSelector = { targets in
        let lookup = lookup(targets)
        return DeclaredCode(
          .select,
          SelectBox<Context> { context in try lookup.target(for: decide(&context)) })
      }
      makeFinalDecision = {
        DeclaredCode(.decideKey, DecideKeyBox<Context> { context in try decide(&context) })
      }
    case .asynchronous(let decide):
      isAsynchronous = true
      makeSelector = { targets in
        let lookup = lookup(targets)
        return DeclaredCode(
          .asyncSelect,
          AsyncSelectBox<Context> { context in
            try await lookup.target(for: decide(&context))
          })
      }
      makeFinalDecision = {
        DeclaredCode(
          .asyncDecideKey,
          AsyncDecideKeyBox<Context> { context in try await decide(&context) })
      }
    }
  }
}

/// Maps a decided key to the index of the state its exit leads to.
///
/// A few keys are compared in turn, which beats hashing; many keys use a dictionary built
/// once, when the chart is compiled.
struct KeyLookup<Key: Hashable & Sendable>: Sendable {
  private static var linearSearchLimit: Int { 8 }
  private let keys: [Key]
  private let targets: [Int32]
  private let table: [Key: Int32]
  private let defaultTarget: Int32?

  init(keys: [Key], targets: [Int32], default defaultTarget: Int32?) {
    self.keys = keys
    self.targets = targets
    self.defaultTarget = defaultTarget
    if keys.count > Self.linearSearchLimit {
      table = Dictionary(zip(keys, targets), uniquingKeysWith: { first, _ in first })
    } else {
      table = [:]
    }
  }

  /// The target for `key`; throws ``UnmatchedKey`` when no exit matches.
  func target(for key: Key) throws -> Int32 {
    if keys.count > Self.linearSearchLimit {
      if let target = table[key] { return target }
    } else {
      for index in keys.indices where keys[index] == key {
        return targets[index]
      }
    }
    if let defaultTarget { return defaultTarget }
    throw UnmatchedKey(key: key)
  }
}

/// Thrown inside a selector when a decided key has no exit; the runtime turns it into a
/// ``RunError``. Users cannot throw it: the type is internal.
struct UnmatchedKey: Error {
  let key: any Hashable & Sendable
}

/// The cases of `type` when it is `CaseIterable`, `nil` otherwise.
private func allCases<Key>(of type: Key.Type) -> [Key]? {
  guard let iterable = type as? any CaseIterable.Type else { return nil }
  func cases<T: CaseIterable>(_ type: T.Type) -> [Any] { Array(type.allCases) }
  return cases(iterable).compactMap { $0 as? Key }
}
