import SeededRandom
import Foundation
import LibraryTestSupport
import Testing
@testable import PhotoLibrary

/// The journal's oracle: replaying the changes since any saved token onto a client's copy of the identifier
/// sets gives the library's current sets, for every object type, plain and coalesced.
@Suite struct ModelBasedHistoryTests {
    struct Saved {
        let token: ChangeToken
        let state: LibraryState
    }

    static func replay(_ changes: PersistentChangeFetchResult, onto state: LibraryState) throws -> [ObjectType: Set<String>] {
        var sets: [ObjectType: Set<String>] = [:]
        for type in ObjectType.allCases { sets[type] = state.identifiers(of: type) }
        for change in changes {
            for type in ObjectType.allCases {
                let details = try change.changeDetails(for: type)
                #expect(details.insertedLocalIdentifiers.isDisjoint(with: sets[type]!), "inserted twice: \(type)")
                #expect(details.deletedLocalIdentifiers.isSubset(of: sets[type]!), "deleted an unknown \(type)")
                #expect(details.updatedLocalIdentifiers.isSubset(of: sets[type]!), "updated an unknown \(type)")
                sets[type]!.formUnion(details.insertedLocalIdentifiers)
                sets[type]!.subtract(details.deletedLocalIdentifiers)
            }
        }
        return sets
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64], StoragePaths.allCases)
    func replayingFromAnySavedTokenGivesTheCurrentState(seed: UInt64, paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        var changes = RandomChanges(seed: seed)
        var saved: [Saved] = [Saved(token: try test.library.currentChangeToken, state: try test.library.fetchCurrentState())]
        var source = RandomSource(seed: seed &* 31)
        for _ in 0..<60 {
            do { try changes.performBlock(on: test.library) } catch is PhotoLibraryError {}
            if source.int(in: 0...3) == 0 {
                let state = try test.library.fetchCurrentState()
                saved.append(Saved(token: state.changeToken, state: state))
            }
        }
        let final = try test.library.fetchCurrentState()
        for point in saved {
            for coalesced in [false, true] {
                let result = try test.library.fetchPersistentChanges(since: point.token, options: .init(coalesced: coalesced))
                let sets = try Self.replay(result, onto: point.state)
                for type in ObjectType.allCases {
                    #expect(sets[type] == final.identifiers(of: type), "seed \(seed), token \(point.token.sequence), coalesced \(coalesced), \(type)")
                }
                #expect(result.endToken == final.changeToken)
            }
            // Paging with a limit reaches the same state.
            var token = point.token
            var state = point.state
            while true {
                let page = try test.library.fetchPersistentChanges(since: token, options: .init(limit: 3))
                let sets = try Self.replay(page, onto: state)
                state = LibraryState(
                    changeToken: page.endToken, assetIdentifiers: sets[.asset]!, assetCollectionIdentifiers: sets[.assetCollection]!,
                    collectionListIdentifiers: sets[.collectionList]!)
                token = page.endToken
                if !page.hasMore { break }
            }
            for type in ObjectType.allCases { #expect(state.identifiers(of: type) == final.identifiers(of: type)) }
        }
    }
}
