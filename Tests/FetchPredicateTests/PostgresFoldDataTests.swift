import Foundation
import Testing

@testable import FetchPredicate

/// The data PostgreSQL folds with is computed at every PostgreSQL library's opening: from the scalars that
/// Unicode's properties say may fold or be dropped, not from all of them. The shortcut must lose nothing of
/// what this process's Foundation does.
@Suite("PostgreSQL's fold data")
struct PostgresFoldDataTests {
    @Test("asking Foundation only about the scalars that may fold gives the data of asking it about every scalar")
    func theShortcutLosesNothing() {
        let exhaustive = PostgresFoldData.exhaustive()
        let current = PostgresFoldData.current
        let missing = Set(exhaustive.scalars).subtracting(current.scalars).map { $0.scalar.unicodeScalars.first!.value }.sorted()
        #expect(missing.isEmpty, "scalars Foundation folds or drops that the shortcut skips: \(missing.prefix(20).map { String($0, radix: 16) })")
        #expect(current.scalars == exhaustive.scalars)
        #expect(current.digest == exhaustive.digest)
        // What the data is about: letters with a case folding, and marks.
        #expect(current.scalars.contains { $0.scalar == "Σ" && $0.caseFold == "σ" })
        #expect(current.scalars.contains { $0.scalar == "\u{301}" && $0.nonBase })
        #expect(current.scalars.count > 2_000)
    }
}
