import Foundation
import Testing

@testable import PhotoLibrary

@Suite("Random identifiers")
struct RandomUUIDsTests {
    @Test("Version-4 UUID strings as Foundation writes them, all distinct, from any number of threads")
    func uuids() async {
        let made = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<4 { group.addTask { (0..<25_000).map { _ in RandomUUIDs.next() } } }
            return await group.reduce(into: [String]()) { $0 += $1 }
        }
        #expect(Set(made).count == made.count)
        for text in made.prefix(2000) {
            let uuid = UUID(uuidString: text)
            #expect(uuid?.uuidString == text, "\(text)")
            let bytes = uuid.map { withUnsafeBytes(of: $0.uuid) { Array($0) } } ?? []
            #expect(bytes.count == 16 && bytes[6] >> 4 == 4 && bytes[8] >> 6 == 2, "\(text)")
        }
        // Every digit but the version's varies (the draws are random, not a counter).
        let version = made[0].index(made[0].startIndex, offsetBy: 14)
        for position in made[0].indices where made[0][position] != "-" && position != version {
            #expect(Set(made.prefix(200).map { $0[position] }).count > 1)
        }
    }
}
