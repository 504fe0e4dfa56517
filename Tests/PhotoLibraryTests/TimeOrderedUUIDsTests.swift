import Foundation
import Testing

@testable import PhotoLibrary

@Suite("Time-ordered identifiers")
struct TimeOrderedUUIDsTests {
    @Test("Version-7 UUID strings as Foundation writes them, all distinct, from any number of threads")
    func uuids() async {
        let made = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<4 { group.addTask { (0..<25_000).map { _ in TimeOrderedUUIDs.next() } } }
            return await group.reduce(into: [String]()) { $0 += $1 }
        }
        #expect(Set(made).count == made.count)
        for text in made.prefix(2000) {
            let uuid = UUID(uuidString: text)
            #expect(uuid?.uuidString == text, "\(text)")
            let bytes = uuid.map { withUnsafeBytes(of: $0.uuid) { Array($0) } } ?? []
            #expect(bytes.count == 16 && bytes[6] >> 4 == 7 && bytes[8] >> 6 == 2, "\(text)")
        }
        // Every digit of the random part (after the variant's) varies: draws, not a counter.
        let randomStart = made[0].index(made[0].startIndex, offsetBy: 20)
        for position in made[0].indices[randomStart...] where made[0][position] != "-" {
            #expect(Set(made.prefix(200).map { $0[position] }).count > 1)
        }
    }

    @Test("Each carries the time it was made, to the millisecond, and later ones sort after earlier ones")
    func ordered() async throws {
        var made: [String] = []
        for _ in 0..<20 {
            let before = UInt64(Date().timeIntervalSince1970 * 1000)
            let identifier = TimeOrderedUUIDs.next()
            let after = UInt64(Date().timeIntervalSince1970 * 1000) + 1
            let milliseconds = try #require(UInt64(identifier.prefix(13).replacingOccurrences(of: "-", with: ""), radix: 16))
            #expect(milliseconds >= before && milliseconds <= after, "\(identifier) at \(before)…\(after)")
            made.append(identifier)
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(made == made.sorted())
    }

    @Test("Assets created one block after another get local identifiers in that order")
    func assetIdentifiersAscend() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "photosync-uuid-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = try PhotoLibrary(url: directory)
        var identifiers: [String] = []
        for block in 0..<5 {
            try library.performChangesAndWait {
                for index in 0..<3 {
                    _ = AssetChangeRequest.creationRequestForAsset(
                        fromFileAt: URL(fileURLWithPath: "/fixture/\(block)-\(index).jpg"),
                        options: AssetCreationOptions(storage: .referenced, contentHash: String(format: "%032x", 3 * block + index), fileSize: 1))
                }
            }
            let fetched = try library.fetchAssets(options: FetchOptions(sortDescriptors: [FetchSort(key: "addedDate")]))
            let new = try (0..<fetched.count).map { try fetched.object(at: $0).localIdentifier }.filter { !identifiers.contains($0) }
            #expect(new.count == 3)
            identifiers += new.sorted()
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(identifiers == identifiers.sorted())
        #expect(identifiers.allSatisfy { $0.hasSuffix("/L0/001") })
    }
}
