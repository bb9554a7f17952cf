#!/usr/bin/env python3
"""Compiles and runs every Swift code block of the README, the DocC articles and the tutorials'
code files, and checks what they print against what the documents say they print.

Run through `bash .ci/samples` (see that script for the rules a document follows). Writes a
scratch package under .build/doc-samples that depends on this package by path, builds it, runs
its programs from the package's folder and its tests, and exits with 1 on any difference.
"""

import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
SCRATCH = os.path.join(ROOT, ".build", "doc-samples")
MIRROR = os.path.join(SCRATCH, "mirror")
MARKER = re.compile(r"^\s*<!--\s*sample:\s*(.*?)\s*-->\s*$")
DECLARATION = re.compile(
    r"^(import|@|struct|enum|func|final|class|extension|actor|protocol|typealias|"
    r"private|fileprivate|public|internal)\b")
PRINT = re.compile(r"(?<![\w.])print\(")
MARKERS = ["partial", "standalone", "scoped", "at", "output", "file"]
TEST = re.compile(r"^\s*@Test\b|.*: XCTestCase\b")

failures = []


def fail(path, line, message):
    failures.append(f"{path}:{line}: error: {message}")


def documents():
    """The documents whose Swift blocks are checked, relative to the package's folder."""
    paths = ["README.md"]
    sources = os.path.join(ROOT, "Sources")
    for module in sorted(os.listdir(sources)):
        catalog = os.path.join(sources, module, "Documentation.docc")
        for folder, _, names in sorted(os.walk(catalog)):
            for name in sorted(names):
                if name.endswith(".md") or name.endswith(".tutorial"):
                    paths.append(os.path.relpath(os.path.join(folder, name), ROOT))
    return paths


class Block:
    def __init__(self, doc, line, language, lines, markers):
        self.doc = doc  # the document's path, relative to the package's folder
        self.line = line  # the document's line of the block's first line of code
        self.language = language
        self.lines = lines
        self.markers = markers  # the words of the `<!-- sample: … -->` lines just above
        self.outputs = []  # the ```text blocks marked `output` that follow this one

    def has(self, word):
        return any(m == word or m.startswith(word + " ") for m in self.markers)

    def value(self, word):
        for m in self.markers:
            if m.startswith(word + " "):
                return m[len(word) + 1:].strip()
        return None


def blocks_of(doc):
    """The fenced blocks of a Markdown document; in a tutorial's code file (`@Code(file:)`),
    the file itself, as one Swift block."""
    text = open(os.path.join(ROOT, doc), encoding="utf-8").read().split("\n")
    found = []
    i = 0
    while i < len(text):
        fence = re.match(r"^(\s*)```(\w*)\s*$", text[i])
        if not fence:
            i += 1
            continue
        markers = []
        j = i - 1
        while j >= 0 and MARKER.match(text[j]):
            markers.insert(0, MARKER.match(text[j]).group(1))
            j -= 1
        indent = len(fence.group(1))
        end = i + 1
        while end < len(text) and text[end].strip() != "```":
            end += 1
        lines = [line[indent:] for line in text[i + 1:end]]
        found.append(Block(doc, i + 2, fence.group(2), lines, markers))
        i = end + 1
    return found


def tutorial_code_files():
    """The Swift files that tutorials show step by step: each is a whole program."""
    files = []
    sources = os.path.join(ROOT, "Sources")
    for module in sorted(os.listdir(sources)):
        resources = os.path.join(sources, module, "Documentation.docc", "Resources")
        if os.path.isdir(resources):
            for name in sorted(os.listdir(resources)):
                if name.endswith(".swift"):
                    files.append(os.path.relpath(os.path.join(resources, name), ROOT))
    return files


def comment_of(line):
    """The trailing `// …` comment of a line of code, outside string literals, or None."""
    quoted = False
    k = 0
    while k < len(line) - 1:
        c = line[k]
        if c == "\\" and quoted:
            k += 2
            continue
        if c == '"':
            quoted = not quoted
        elif not quoted and line.startswith("//", k):
            return line[k + 2:].strip() if line[:k].strip() else None
        k += 1
    return None


def expectations(block):
    """What each `print` line of a block says it prints: its trailing comment and the
    whole-line comments right below it, one line of output each."""
    expected = {}
    for k, line in enumerate(block.lines):
        if not PRINT.search(line):
            continue
        said = []
        trailing = comment_of(line)
        if trailing is not None:
            said.append(trailing)
        m = k + 1
        while trailing is None and m < len(block.lines) and re.match(r"^\s*//", block.lines[m]):
            said.append(re.sub(r"^\s*// ?", "", block.lines[m]))
            m += 1
        if said:
            expected[block.line + k] = said
    return expected


def matches(expected, actual):
    """Whether printed lines match the documented ones, where `…` in a line stands for any
    text, and a line that is only `…` for any number of lines."""
    if not expected:
        return not actual
    if expected[0].strip() == "…":
        return any(matches(expected[1:], actual[k:]) for k in range(len(actual) + 1))
    if not actual:
        return False
    pattern = "".join(".*" if part == "…" else re.escape(part)
                      for part in re.split("(…)", expected[0]))
    return re.fullmatch(pattern, actual[0]) is not None and matches(expected[1:], actual[1:])


def contains(expected, actual):
    """Whether the documented lines appear, in a row, in the printed lines."""
    for start in range(len(actual) - len(expected) + 1):
        if matches(expected, actual[start:start + len(expected)]):
            return True
    return False


class Program:
    def __init__(self, name, doc):
        self.name = name
        self.doc = doc
        self.blocks = []
        self.fixtures = []  # (relative path, text) written beside the program's source
        self.is_test = False
        self.module = None

    @property
    def target(self):
        return self.module or self.name + ("Tests" if self.is_test else "")


def identifier(text):
    return re.sub(r"\W", "", text)


def collect():
    programs = {}
    partial = []
    for doc in documents():
        blocks = blocks_of(doc)
        previous = None
        base = "Doc" + identifier(os.path.splitext(os.path.basename(doc))[0])
        for block in blocks:
            for marker in block.markers:
                if marker.split(" ")[0] not in MARKERS:
                    fail(doc, block.line - 1, f"unknown sample marker '{marker}': use one of "
                         + ", ".join(MARKERS))
            if block.language == "text" and block.has("output"):
                if previous is None:
                    fail(doc, block.line, "an output block follows no Swift block")
                else:
                    previous.outputs.append(block)
                continue
            if block.language == "text" and block.has("file"):
                if previous is None:
                    fail(doc, block.line, "a file block follows no Swift block")
                else:
                    previous.program.fixtures.append((block.value("file"), block.lines))
                continue
            if block.language != "swift":
                continue
            if block.has("partial"):
                partial.append(block)
                previous = None
                continue
            name = base
            if block.has("standalone"):
                name = f"{base}L{block.line}"
            program = programs.setdefault(name, Program(name, doc))
            at = block.value("at")
            if at:
                # The program's module takes the file's folder name, as #fileID shows it.
                program.module = at.split(":")[0].split("/")[0]
            program.blocks.append(block)
            block.program = program
            if any(TEST.match(line) for line in block.lines):
                program.is_test = True
            previous = block
    # A tutorial's code files, in the order of their names: a `…main.swift` or `…Tests.swift`
    # file is compiled with the declarations of the newest other file before it, as the app's
    # code it runs or tests; any other file alone.
    declarations = None
    for path in tutorial_code_files():
        lines = open(os.path.join(ROOT, path), encoding="utf-8").read().rstrip("\n").split("\n")
        block = Block(path, 1, "swift", lines, [])
        name = "Doc" + identifier(os.path.splitext(os.path.basename(path))[0])
        program = Program(name, path)
        if re.search(r"(main|Tests)\.swift$", path) and declarations:
            program.blocks.append(declarations)
        else:
            declarations = block
        program.blocks.append(block)
        block.program = program
        program.is_test = any(TEST.match(line) for b in program.blocks for line in b.lines)
        programs[name] = program
    return programs, partial


PRELUDE = r"""
// Generated by .ci/samples: each `print` of a sample records its module and document line.
func print(
  sampleLine: Int, _ items: Any..., separator: String = " ", terminator: String = "\n",
  fileID: String = #fileID
) {
  let text = items.map { "\($0)" }.joined(separator: separator) + terminator
  let module = fileID.prefix { $0 != "/" }
  // One line a record, so that a test runner's lines cannot come between its lines.
  let line = text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\u{1E}")
  Swift.print("\u{1}\(module)\u{1F}\(sampleLine)\u{2}\(line)\u{3}")
}

func print<Target: TextOutputStream>(
  sampleLine: Int, _ items: Any..., separator: String = " ", terminator: String = "\n",
  to output: inout Target
) {
  let text = items.map { "\($0)" }.joined(separator: separator)
  Swift.print(text, terminator: terminator, to: &output)
}
"""


def source_of(program):
    """The program's Swift source: each block under a #sourceLocation of its document (a copy
    in the scratch folder, whose paths the build's messages are mapped back from)."""
    parts = []
    for block in program.blocks:
        lines = [PRINT.sub(f"print(sampleLine: {block.line + k}, ", line)
                 for k, line in enumerate(block.lines)]
        at = block.value("at")
        if at:
            path, first = at.rsplit(":", 1)
            location = os.path.join(MIRROR, os.path.dirname(block.doc), os.path.basename(path))
            line = int(first)
        else:
            location = os.path.join(MIRROR, block.doc)
            line = block.line
        def located(first, text):
            return [f'#sourceLocation(file: "{location}", line: {first})', text,
                    "#sourceLocation()"]

        # A block's imports stay at file scope whatever wraps the rest.
        imports = 0
        while imports < len(lines) and re.match(r"^(import \w+)?\s*$", lines[imports]):
            imports += 1
        if imports:
            parts += located(line, "\n".join(lines[:imports]))
        rest = "\n".join(lines[imports:])
        if program.is_test and not DECLARATION.match(next(
                (l.strip() for l in lines[imports:]
                 if l.strip() and not l.strip().startswith("//")), "")):
            # Statements in a test document run as a test of their own.
            parts.append(f"@Test func sampleAtLine{block.line}() async throws {{")
            parts += located(line + imports, rest)
            parts.append("}")
        elif block.has("scoped"):
            # Its declarations are its own, so that it may declare a name another block does.
            parts.append("do {")
            parts += located(line + imports, rest)
            parts.append("}")
        else:
            parts += located(line + imports, rest)
    return "\n".join(parts) + "\n"


def write_package(programs):
    identity = os.path.basename(ROOT).lower()
    targets = []
    for program in programs.values():
        products = ['"Flowchart"', '"FlowchartFiles"', '"FlowchartTesting"', '"FlowchartStepFunctions"', '"FlowchartStores"']
        dependencies = ", ".join(
            f'.product(name: {p}, package: "{identity}")' for p in products)
        kind = "testTarget" if program.is_test else "executableTarget"
        name = program.target
        targets.append(
            f'    .{kind}(name: "{name}", dependencies: [{dependencies}], path: "{name}"),')
        folder = os.path.join(SCRATCH, name)
        os.makedirs(folder, exist_ok=True)
        main = "Samples.swift" if program.is_test else "main.swift"
        write(os.path.join(folder, main), source_of(program))
        write(os.path.join(folder, "Prelude.swift"), PRELUDE)
        for block in program.blocks:
            mirrored = os.path.join(MIRROR, block.doc)
            os.makedirs(os.path.dirname(mirrored), exist_ok=True)
            shutil.copyfile(os.path.join(ROOT, block.doc), mirrored)
        for path, lines in program.fixtures:
            # Beside the document's copy, where `#filePath` of the sample points.
            fixture = os.path.join(MIRROR, os.path.dirname(program.doc), path)
            os.makedirs(os.path.dirname(fixture), exist_ok=True)
            write(fixture, "\n".join(lines) + "\n")
    manifest = f"""// swift-tools-version: 6.1
// Generated by .ci/samples from the documents' Swift blocks: do not edit.
import PackageDescription

let package = Package(
  name: "DocSamples",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
  dependencies: [.package(path: "{ROOT}")],
  targets: [
{chr(10).join(targets)}
  ],
  swiftLanguageModes: [.v6]
)
"""
    write(os.path.join(SCRATCH, "Package.swift"), manifest)


def write(path, text):
    if os.path.exists(path) and open(path, encoding="utf-8").read() == text:
        return  # unchanged, so the build stays incremental
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def swift(*arguments, timeout=None):
    """Runs `swift` on the scratch package, with the messages' paths mapped back to the
    documents; returns the exit status and the output."""
    done = subprocess.run(
        ["swift", *arguments, "--package-path", SCRATCH], cwd=ROOT, capture_output=True,
        text=True, timeout=timeout)
    output = (done.stdout + done.stderr).replace(MIRROR + "/", ROOT + "/")
    return done.returncode, output


def main():
    if os.path.isdir(SCRATCH):
        for entry in os.listdir(SCRATCH):
            if entry not in (".build", "mirror", "Package.swift"):
                shutil.rmtree(os.path.join(SCRATCH, entry), ignore_errors=True)
    os.makedirs(SCRATCH, exist_ok=True)
    programs, partial = collect()
    write_package(programs)

    status, output = swift("build", "--build-tests")
    # The samples' own messages: the documents' (the README, the catalogs' files), not the
    # package's sources, which the package's own build checks.
    warnings = [line for line in output.split("\n")
                if re.match(r"^" + re.escape(ROOT) + r"/([^/]*|.*/Documentation\.docc/.*):\d+:"
                            r"(\d+:)? (warning|error):", line)]
    if status != 0 or warnings:
        print(output, file=sys.stderr)
        print("The documents' samples above do not build without warnings.", file=sys.stderr)
        return 1

    bin_path = swift("build", "--show-bin-path")[1].strip().split("\n")[-1]
    for program in programs.values():
        if program.is_test:
            continue
        try:
            done = subprocess.run(
                [os.path.join(bin_path, program.target)], cwd=ROOT, capture_output=True,
                text=True, timeout=300)
        except subprocess.TimeoutExpired:
            fail(program.doc, program.blocks[0].line, "the sample did not end within 300 s")
            continue
        if done.returncode != 0:
            fail(program.doc, program.blocks[0].line,
                 f"the sample exited with {done.returncode}:\n{done.stderr}")
        check(program, records_of(program, done.stdout))

    tests = [program for program in programs.values() if program.is_test]
    if tests:
        status, output = swift("test", "--skip-build", timeout=600)
        if status != 0:
            print(output, file=sys.stderr)
            failures.append("The documents' test samples above failed.")
        for program in tests:
            check(program, records_of(program, output))

    for failure in failures:
        print(failure, file=sys.stderr)
    if failures:
        return 1
    count = sum(len(p.blocks) for p in programs.values())
    print(f"{count} Swift blocks in {len(programs)} programs compiled and checked; "
          f"{len(partial)} partial blocks skipped:")
    for block in partial:
        print(f"  {block.doc}:{block.line}")
    return 0


def records_of(program, output):
    """What the program's `print`s printed, in order: (document line, text)."""
    return [(int(line), text.replace("\x1e", "\n")) for name, line, text in
            re.findall(r"\x01(\w+)\x1f(\d+)\x02(.*?)\x03", output)
            if name == program.target]


def check(program, records):
    for block in program.blocks:
        lines = range(block.line, block.line + len(block.lines))
        for line, said in expectations(block).items():
            printed = [text for at, text in records if at == line]
            if not printed:
                fail(block.doc, line, "this print printed nothing; the comment says:\n  "
                     + "\n  ".join(said))
                continue
            actual = printed[0].rstrip("\n").split("\n")
            if not matches(said, actual):
                fail(block.doc, line, "this print printed:\n  " + "\n  ".join(actual)
                     + "\nbut its comment says:\n  " + "\n  ".join(said))
        printed = "".join(text for at, text in records if at in lines)
        actual = printed.rstrip("\n").split("\n")
        for output in block.outputs:
            expected = output.lines
            while expected and not expected[-1].strip():
                expected = expected[:-1]
            if not contains(expected, actual):
                fail(block.doc, output.line,
                     "this output is not what the Swift block above printed:\n  "
                     + "\n  ".join(actual))


if __name__ == "__main__":
    sys.exit(main())
