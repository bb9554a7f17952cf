/// The words of the syntax a chart was declared in, as the compiler's advice names them: the
/// hook another module of this package uses to word the compiler's findings in its own terms
/// (a chart file's elements and keys rather than `GoTo`, `Case` and `isFinal: true`).
///
/// ``swift`` is the DSL's, which every chart declared in Swift uses; the messages it gives
/// are the ones the DSL documents. A front end passes its own to
/// `Flowchart.init(entryPoints:location:vocabulary:declarations:)`; the words may depend on
/// the file a problem is in (`fileID`), since one chart may include files of several
/// syntaxes.
package struct DeclarationVocabulary: Sendable {
  /// What the advice names.
  package enum Term: Sendable, CaseIterable {
    /// How a state is declared final: `isFinal: true`.
    case finalFlag
    /// A final state to declare, as an example: `Action("Done", isFinal: true)`.
    case finalStateExample
    /// An arrow to a named state: `GoTo`.
    case goTo
    /// An action, as a kind to use instead: `Action`.
    case action
    /// A multiple condition's exit for a key: `Case`.
    case caseExit
    /// A multiple condition's default exit: `Default`.
    case defaultExit
    /// A condition's exits: `yes: and no: branches`.
    case conditionExits
    /// A dispatch's branch: `Branch`.
    case branch
    /// How to declare a branch without a name: `declare it without one: Branch { … }`.
    case unnamedBranch
    /// How to make a state an entry point: `list it in entryPoints:`.
    case entryPointList

    /// The DSL's words.
    var swiftWords: String {
      switch self {
      case .finalFlag: "isFinal: true"
      case .finalStateExample: "Action(\"Done\", isFinal: true)"
      case .goTo: "GoTo"
      case .action: "Action"
      case .caseExit: "Case"
      case .defaultExit: "Default"
      case .conditionExits: "yes: and no: branches"
      case .branch: "Branch"
      case .unnamedBranch: "declare it without one: Branch { … }"
      case .entryPointList: "list it in entryPoints:"
      }
    }
  }

  private let words: @Sendable (_ term: Term, _ fileID: String) -> String

  /// A vocabulary whose words for each term, in the file `fileID`, `words` gives.
  package init(_ words: @escaping @Sendable (_ term: Term, _ fileID: String) -> String) {
    self.words = words
  }

  /// The DSL's words.
  package static let swift = DeclarationVocabulary { term, _ in term.swiftWords }

  /// The words for `term` in a message about the file `fileID`.
  package func callAsFunction(_ term: Term, in fileID: String) -> String {
    words(term, fileID)
  }
}
