import FetchPredicate
import PhotoLibrary

/// The assets a pre-render renders: every asset with an image (all but audio, hidden ones and every burst
/// member included), newest first — or only those added or changed since a change token.
struct PrerenderSelection {
    /// `library` or `changes` (the wire's `scope`).
    let scope: String
    let assets: FetchResult<Asset>

    /// Every asset with an image, newest first.
    static func all(in library: PhotoLibrary) throws -> PrerenderSelection {
        PrerenderSelection(scope: "library", assets: try library.fetchAssets(options: options))
    }

    /// The assets inserted, or whose content or edit changed, since `token` and still in the library. A
    /// token the history no longer reaches selects every asset (renditions already cached cost little).
    ///
    /// - Throws: ``CommandFailure`` `tokenInvalid` for a token of another library or ahead of it.
    static func changed(since token: ChangeToken, in library: PhotoLibrary) throws -> PrerenderSelection {
        let changes: PersistentChangeFetchResult
        do {
            changes = try library.fetchPersistentChanges(since: token, options: PersistentChangeFetchOptions(coalesced: true))
        } catch .persistentChangeTokenExpired {
            return try all(in: library)
        } catch {
            throw CommandFailure.from(error)
        }
        var identifiers = Set<String>()
        var iterator = changes.makeThrowingIterator()
        while let change = try iterator.next() {
            let details = try change.changeDetails(for: .asset)
            identifiers.formUnion(details.insertedLocalIdentifiers)
            for identifier in details.updatedLocalIdentifiers {
                let changed = details.changedAssetProperties(for: identifier) ?? []
                if !changed.isDisjoint(with: [.content, .hasAdjustments]) { identifiers.insert(identifier) }
            }
        }
        let assets = try library.fetchAssets(withLocalIdentifiers: identifiers.sorted(), options: options)
        return PrerenderSelection(scope: "changes", assets: assets)
    }

    private static var options: FetchOptions {
        FetchOptions(
            predicate: FetchFilter(Asset.mediaType != .audio), sortDescriptors: [FetchSort(Asset.creationDate, ascending: false)],
            includeHiddenAssets: true, includeAllBurstAssets: true)
    }
}
