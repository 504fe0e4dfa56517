import Foundation
import MediaProbe
import PhotoLibrary

/// Pairs the stills and movies of Live Photos while a folder is mirrored.
///
/// The rule: a still (an image file) and a movie (a video file) **in the same directory** whose
/// ``MediaMetadata/contentIdentifier`` is the same — for a still, the Apple maker note's ContentIdentifier
/// (tag 0x11); for a movie, QuickTime's `com.apple.quicktime.content.identifier` — form a Live Photo: the
/// still's asset carries ``AssetMediaSubtypes/photoLive``. A still with no such movie beside it never
/// carries it (the maker note alone is only a hint). The movie stays its own video asset, in the same album,
/// with no subtype of its own (a library fed by PhotoKit would hold it as the still's paired resource; this
/// one mirrors files, and the movie is a file of its own).
///
/// The pairing holds in whatever order and in whatever batches the two files are mirrored: whenever a batch
/// changes a directory's files that carry a content identifier (inserted, edited, moved in or out, deleted),
/// the directory's stills are re-evaluated and their flag set or cleared in that same transaction. So a movie
/// arriving later pairs its still, a movie deleted, renamed into another directory or edited to another
/// identifier unpairs it, and a still edited in place keeps its flag while its movie is there.
///
/// What it keeps: the content identifier and role of every mirrored file that has one, per directory, in
/// memory (nothing in the library's mirror state). Files hashed in this process are classified by the probe
/// the worker made anyway. After a restart, a directory is classified again — its files' headers probed,
/// not hashed — only when it first matters: it holds a still that carries `photoLive` (found once, by one
/// fetch), or a batch brings a file with a content identifier into it. A file moved from a directory not
/// classified yet has its headers probed at its new place. A file that can't be probed then (gone, unreadable)
/// counts as unpaired until a later change in its directory.
///
/// A value owned by the ``MirrorEngine`` actor; ``plan(_:model:root:library:timeZone:)`` runs before a batch's
/// change block and ``committed()`` after it: when the block failed, the next plan starts afresh from the
/// library (as the engine's model does).
struct LivePhotoPairing {
    enum Role: Equatable {
        case still
        case movie
    }

    /// A mirrored file with a content identifier.
    struct Member {
        var role: Role
        var identifier: String
        /// For a still: whether its asset carries `photoLive` now, as far as known (nil: to be fetched).
        var live: Bool?
    }

    /// What one batch's change block does about Live Photos.
    struct Plan {
        /// Inserted or edited files (by relative path) whose asset is to carry `photoLive`: the change block
        /// applies their probe, which never sets it, then ``mark(_:path:)``.
        var liveFiles: Set<String> = []
        /// Assets not otherwise rewritten whose flag changes, with the value it takes.
        var assetChanges: [(asset: Asset, live: Bool)] = []

        /// Sets `photoLive` on the request of an inserted or edited file when the file is a paired still.
        func mark(_ request: AssetChangeRequest, path: String) {
            if liveFiles.contains(path) { request.mediaSubtypes.insert(.photoLive) }
        }

        /// Sets or clears `photoLive` on the assets whose pairing changed. Call inside the change block.
        func applyAssetChanges() {
            for (asset, live) in assetChanges {
                var subtypes = asset.mediaSubtypes
                if live { subtypes.insert(.photoLive) } else { subtypes.remove(.photoLive) }
                AssetChangeRequest(for: asset).mediaSubtypes = subtypes
            }
        }
    }

    /// Files with a content identifier: directory → file name → member.
    private var members: [String: [String: Member]] = [:]
    /// Directories every mirrored file of which has been classified in this process: `members` is exact there.
    private var classified: Set<String> = []
    /// Whether the stills carrying `photoLive` have been looked up in the library (once per state).
    private var loaded = false
    /// A plan was made and its block has not been reported committed.
    private var uncommitted = false

    init() {}

    /// The block of the last plan committed.
    mutating func committed() { uncommitted = false }

    /// Folds a batch into the pairing state and says what its change block must do.
    ///
    /// - Parameters:
    ///   - model: the mirror state with the batch's file changes already applied (asset identifiers of the
    ///     batch's inserts are not known yet).
    /// - Throws: the library's errors, from the fetches.
    /// - Complexity: O(changed files + members of the directories re-evaluated); after a restart, each
    ///   directory classified again costs one pass over the model and one header probe per file in it.
    mutating func plan(
        _ batch: Batch, model: MirrorModel, root: String, library: PhotoLibrary, timeZone: TimeZone
    ) throws(PhotoLibraryError) -> Plan {
        // A batch that adds, edits, moves and deletes no file (only restamps, cookies, a scan record) changes
        // no pairing: nothing to load or re-evaluate.
        if batch.inserts.isEmpty && batch.updates.isEmpty && batch.moves.isEmpty && batch.deletes.isEmpty { return Plan() }
        if uncommitted { self = LivePhotoPairing() }
        uncommitted = true
        var work = PlanWork()
        try loadIfNeeded(model: model, library: library, into: &work)
        fold(batch, root: root, timeZone: timeZone, into: &work)
        classifyDirectories(model: model, root: root, timeZone: timeZone, work: work)
        return try reevaluate(work, model: model, library: library)
    }

    /// What one plan gathers before it re-evaluates.
    private struct PlanWork {
        /// The directories whose pairing may have changed.
        var touched = Set<String>()
        /// Files entering a directory in this batch, classified: they need no probe.
        var classifiedNow: [String: Set<String>] = [:]
        /// The paths of the batch's inserts and updates: their assets are written by the batch itself.
        var fromBatch = Set<String>()
    }

    /// On the first plan (a new state, or one dropped after an uncommitted plan), the directories of the
    /// library's live photos are re-evaluated.
    private mutating func loadIfNeeded(model: MirrorModel, library: PhotoLibrary, into work: inout PlanWork) throws(PhotoLibraryError) {
        guard !loaded else { return }
        loaded = true
        let liveAssets = try library.fetchAssets(options: FetchOptions(
            predicate: "mediaSubtypes CONTAINS photoLive", includeHiddenAssets: true, includeAllBurstAssets: true))
        guard liveAssets.count > 0 else { return }
        let identifiers = Set(liveAssets.map(\.localIdentifier))
        model.forEachFile { file in
            if let id = file.assetIdentifier, identifiers.contains(id) { work.touched.insert(FileSystem.parent(of: file.relativePath)) }
        }
    }

    /// Folds the batch's deletions, moves, updates and inserts into the members of their directories.
    private mutating func fold(_ batch: Batch, root: String, timeZone: TimeZone, into work: inout PlanWork) {
        for file in batch.deletes { remove(file.relativePath, &work) }
        // Every source is looked up before any destination is written: a batch may rotate names (a → b, c → a).
        let moving = batch.moves.map { members[FileSystem.parent(of: $0.from.relativePath)]?[FileSystem.name(of: $0.from.relativePath)] }
        for (from, _) in batch.moves { remove(from.relativePath, &work) }
        for ((from, to), member) in zip(batch.moves, moving) {
            let source = FileSystem.parent(of: from.relativePath)
            if member != nil || classified.contains(source) {
                add(to.relativePath, member, &work)
            } else {
                add(to.relativePath, Self.probe(root + "/" + to.relativePath, timeZone: timeZone), &work)
            }
        }
        for (new, _) in batch.updates {
            remove(new.path, &work)
            add(new.path, Self.member(new.probe, live: false), &work)
            work.fromBatch.insert(new.path)
        }
        for file in batch.inserts {
            add(file.path, Self.member(file.probe, live: false), &work)
            work.fromBatch.insert(file.path)
        }
    }

    private mutating func remove(_ path: String, _ work: inout PlanWork) {
        let directory = FileSystem.parent(of: path)
        if members[directory]?.removeValue(forKey: FileSystem.name(of: path)) != nil { work.touched.insert(directory) }
    }

    private mutating func add(_ path: String, _ member: Member?, _ work: inout PlanWork) {
        let directory = FileSystem.parent(of: path)
        work.classifiedNow[directory, default: []].insert(path)
        guard let member else { return }
        members[directory, default: [:]][FileSystem.name(of: path)] = member
        work.touched.insert(directory)
    }

    /// Directories not classified yet: exact once every file in them came with this batch; else probed when
    /// they matter.
    private mutating func classifyDirectories(model: MirrorModel, root: String, timeZone: TimeZone, work: PlanWork) {
        var toClassify = Set<String>()
        for directory in work.touched.union(work.classifiedNow.keys) where !classified.contains(directory) {
            let known = work.classifiedNow[directory]?.count(where: { model.stamp(at: $0) != nil }) ?? 0
            if known == model.directCount[directory] ?? 0 {
                classified.insert(directory)
            } else if work.touched.contains(directory) {
                toClassify.insert(directory)
            }
        }
        guard !toClassify.isEmpty else { return }
        var paths: [String] = []
        model.forEachFile { paths.append($0.relativePath) }
        for path in paths {
            let directory = FileSystem.parent(of: path)
            guard toClassify.contains(directory), work.classifiedNow[directory]?.contains(path) != true else { continue }
            var member = Self.probe(root + "/" + path, timeZone: timeZone)
            member?.live = nil
            if let member { members[directory, default: [:]][FileSystem.name(of: path)] = member }
        }
        classified.formUnion(toClassify)
    }

    /// Re-evaluates the touched directories: each still is live exactly when a movie beside it has its
    /// identifier. Files of the batch are marked in the plan; assets already in the library whose state
    /// changes become asset changes.
    private mutating func reevaluate(_ work: PlanWork, model: MirrorModel, library: PhotoLibrary) throws(PhotoLibraryError) -> Plan {
        var plan = Plan()
        var pending: [(directory: String, name: String, live: Bool, asset: String)] = []
        for directory in work.touched {
            guard var files = members[directory] else { continue }
            let movies = Set(files.values.filter { $0.role == .movie }.map(\.identifier))
            for (name, member) in files where member.role == .still {
                let live = movies.contains(member.identifier)
                let path = directory.isEmpty ? name : directory + "/" + name
                if work.fromBatch.contains(path) {
                    if live { plan.liveFiles.insert(path) }
                    files[name]?.live = live
                } else if member.live != live, let asset = model[path: path]?.assetIdentifier {
                    pending.append((directory, name, live, asset))
                }
            }
            members[directory] = files.isEmpty ? nil : files
        }
        guard !pending.isEmpty else { return plan }
        let fetched = try library.fetchAssets(
            withLocalIdentifiers: pending.map(\.asset),
            options: FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true))
        var assets: [String: Asset] = [:]
        for asset in fetched { assets[asset.localIdentifier] = asset }
        for item in pending {
            guard let asset = assets[item.asset] else { continue }
            if asset.mediaSubtypes.contains(.photoLive) != item.live { plan.assetChanges.append((asset, item.live)) }
            members[item.directory]?[item.name]?.live = item.live
        }
        return plan
    }

    /// The member a probe describes: a still or a movie with a content identifier; nil for anything else.
    private static func member(_ probe: ProbeResult, live: Bool?) -> Member? {
        guard let identifier = probe.metadata.contentIdentifier, !identifier.isEmpty, let kind = probe.format?.kind
        else { return nil }
        switch kind {
        case .image: return Member(role: .still, identifier: identifier, live: live)
        case .video: return Member(role: .movie, identifier: identifier, live: nil)
        }
    }

    /// Classifies a mirrored file by its headers (no hash); nil when it has no content identifier or can't
    /// be read now (it is then treated as unpaired until it changes).
    private static func probe(_ path: String, timeZone: TimeZone) -> Member? {
        guard let result = try? MediaProbe.probe(fileAt: path, timeZone: timeZone) else { return nil }
        return member(result, live: nil)
    }
}
