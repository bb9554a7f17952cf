import Testing

@testable import Flowchart

#if os(Linux)
  /// glibc's `malloc_usable_size`: how many bytes the heap block of an object holds.
  @_silgen_name("malloc_usable_size")
  private func usableSize(_ pointer: UnsafeRawPointer) -> Int

  /// Compiling a large chart is bound by the memory its declarations take (see
  /// `StateDeclaration`): a declaration must stay in glibc's 96-byte heap block, with or
  /// without code, and with a subflow's attachment.
  struct DeclarationLayoutTests {
    private static func heapBlock(of declaration: Declaration<Int>) throws -> Int {
      guard case .state(let state) = declaration.node else { throw Missing() }
      return usableSize(Unmanaged.passUnretained(state).toOpaque())
    }

    private struct Missing: Error {}

    /// The smallest heap block of several declarations made the same way: glibc may hand a
    /// request a larger block than it needs when the rest of a free block would be too
    /// small to keep, so one declaration's block says little, the smallest says its size.
    private static func smallestHeapBlock(
      of make: () -> Declaration<Int>
    ) throws -> Int {
      var declarations: [Declaration<Int>] = []
      for _ in 0..<32 { declarations.append(make()) }
      return try declarations.map(heapBlock(of:)).min() ?? .max
    }

    @Test func aDeclarationFitsTheNinetySixByteBlock() throws {
      let inner = try Flowchart<Int> { Action("Inner", isFinal: true) }
      let makers: [() -> Declaration<Int>] = [
        { Action("Work") { $0 += 1 }.declaration },
        { Action("Point", isFinal: true).declaration },
        {
          Condition("Positive?") {
            $0 > 0
          } yes: {
          }.declaration
        },
        { Subflow("Inner", running: inner, context: .whole).declaration },
      ]
      for make in makers {
        #expect(try Self.smallestHeapBlock(of: make) <= 88)
      }
    }

    @Test func anAttachmentKeepsTheBoxAndTheFinality() throws {
      let inner = try Flowchart<Int> { Action("Inner", isFinal: true) }
      let subflow = Subflow<Int>("Inner", isFinal: true, running: inner, context: .whole)
      guard case .state(let state) = subflow.declaration.node else { throw Missing() }
      #expect(state.isFinal)
      #expect(state.codeBox is ActionBox<Int>)
      #expect(state.attachment != nil)
      guard case .state(let plain) = Action<Int>("Plain").declaration.node else {
        throw Missing()
      }
      #expect(!plain.isFinal)
      #expect(plain.codeBox == nil)
      #expect(plain.attachment == nil)
    }
  }
#endif
