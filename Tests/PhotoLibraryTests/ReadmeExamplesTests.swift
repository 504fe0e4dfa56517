import Foundation
import Testing

/// The README's Swift examples are the files of `Examples/` (a package CI builds and runs), quoted exactly:
/// they can't drift apart.
@Suite struct ReadmeExamplesTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The Swift code blocks of the README, in order.
    static func readmeSwiftBlocks() throws -> [String] {
        let readme = try String(contentsOf: repository.appending(path: "README.md"), encoding: .utf8)
        var blocks: [String] = []
        var current: [Substring]?
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n") + "\n")
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// Every example program: `Examples/Sources/NAME/main.swift`.
    static func examples() throws -> [String: String] {
        let sources = repository.appending(path: "Examples/Sources")
        var result: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: sources.path) {
            let file = sources.appending(path: "\(name)/main.swift")
            result[name] = try String(contentsOf: file, encoding: .utf8)
        }
        return result
    }

    @Test("Every Swift block of the README is an example file, quoted whole, and every example is quoted")
    func readmeQuotesTheExamples() throws {
        let blocks = try Self.readmeSwiftBlocks()
        let examples = try Self.examples()
        #expect(examples.count >= 4, "\(examples.keys.sorted())")
        for (index, block) in blocks.enumerated() {
            #expect(examples.values.contains(block), "README Swift block \(index + 1) is not an Examples/ file as it is")
        }
        for (name, source) in examples.sorted(by: { $0.key < $1.key }) {
            #expect(blocks.contains(source), "Examples/Sources/\(name)/main.swift is not quoted in the README as it is")
        }
        // Each example is a target of the Examples package.
        let manifest = try String(contentsOf: Self.repository.appending(path: "Examples/Package.swift"), encoding: .utf8)
        for name in examples.keys { #expect(manifest.contains("name: \"\(name)\""), "\(name) is not an executable target") }
    }
}
