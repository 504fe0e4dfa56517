import Foundation
import PhotoImaging
import PhotoLibrary
import PhotosyncWire

#if canImport(Glibc)
import Glibc
#endif

/// One pre-render of a selection of assets into the library's rendition cache: renders what is missing,
/// publishes its progress for `photosync status` (``PrerenderPublisher``), and shows it (``ProgressReporter``).
struct PrerenderRun: Sendable {
    let library: PhotoLibrary
    let selection: PrerenderSelection
    let sizes: [ThumbnailSize]
    let contentMode: ThumbnailMode
    let format: ImageOutputFormat
    /// Renders at once.
    let jobs: Int
    /// A rendition cache budget to set for the library first (stored with the cache), or nil to keep its own.
    var cacheBudget: Int64? = nil

    /// Runs until every asset is done, or the calling task is cancelled (a signal): then it waits for the
    /// renders under way to stop, so that the process never exits in the middle of writing a rendition. The
    /// last state, as published.
    ///
    /// - Throws: ``CommandFailure`` when the rendition cache can't be opened.
    func run(publisher: PrerenderPublisher, reporter: ProgressReporter) async throws -> Wire.Prerender {
        let manager: ImageManager
        do {
            manager = try ImageManager(library: library, configuration: .init(maximumConcurrentRenders: jobs))
            if let cacheBudget { try manager.setRenditionCacheBudget(cacheBudget) }
        } catch {
            throw CommandFailure("can't pre-render: \(error)")
        }
        let timeZone = library.momentTimeZone
        var state = initialState(timeZone: timeZone)
        publisher.publish(state, force: true)
        let renders = manager.prerenderRenditions(
            of: selection.assets, sizes: sizes.map(\.size), contentMode: contentMode.contentMode, format: format, concurrency: jobs)
        var atBudget = false
        for await progress in renders {
            atBudget = progress.stoppedAtBudget
            state.record(progress, at: Date(), timeZone: timeZone)
            publisher.publish(state)
            reporter.report(.init(
                phase: "rendering", filesDone: progress.completed, filesTotal: progress.total, bytesDone: 0, unit: "assets",
                showsBytes: false))
        }
        await manager.waitUntilRendersStop()
        reporter.finish()
        let now = Wire.Timestamp(Date(), timeZone: timeZone)
        state.state = atBudget ? "cacheFull" : state.completed == state.total ? "finished" : "interrupted"
        state.updated = now
        state.finished = now
        publisher.publish(state, force: true)
        return state
    }

    private func initialState(timeZone: TimeZone) -> Wire.Prerender {
        let now = Wire.Timestamp(Date(), timeZone: timeZone)
        return Wire.Prerender(
            state: "running", pid: getpid(), scope: selection.scope, sizes: sizes.map(\.description),
            contentMode: contentMode.rawValue, format: format.nameWithQuality, total: selection.assets.count, completed: 0,
            rendered: 0, alreadyCached: 0, failed: 0, lastError: nil, started: now, updated: now, finished: nil)
    }
}

extension Wire.Prerender {
    /// Takes the counts of a progress report.
    mutating func record(_ progress: PrerenderProgress, at date: Date, timeZone: TimeZone) {
        completed = progress.completed
        rendered = progress.rendered
        alreadyCached = progress.alreadyCached
        failed = progress.failed
        lastError = progress.lastError.map { "\($0)" }
        updated = Wire.Timestamp(date, timeZone: timeZone)
    }

    /// `running: 120/5,000 assets (240 renditions rendered, 3 failed), sizes 256, 1440` and the like.
    var summary: String {
        let counts = "\(completed.formatted())/\(total.formatted()) \(total == 1 ? "asset" : "assets")"
            + " (\(Plural.count(rendered, "rendition")) rendered, \(alreadyCached.formatted()) already cached, \(failed.formatted()) failed)"
        let what = "sizes \(sizes.joined(separator: ", ")), \(contentMode), \(format)" + (scope == "changes" ? ", assets added or changed" : "")
        switch state {
        case "running": return "running (pid \(pid)) since \(started): \(counts); \(what)"
        case "finished": return "finished \(finished?.description ?? updated.description): \(counts); \(what)"
        case "cacheFull":
            return "stopped at the rendition cache's budget \(finished?.description ?? updated.description), at \(counts); \(what); the rest renders on request (a larger budget: thumbnails --cache-budget)"
        default: return "interrupted \(finished?.description ?? updated.description) at \(counts); \(what); the next run resumes"
        }
    }
}
