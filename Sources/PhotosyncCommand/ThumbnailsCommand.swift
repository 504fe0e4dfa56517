import ArgumentParser
import Foundation
import PhotoImaging
import PhotoLibrary
import PhotosyncWire
import Synchronization

struct ThumbnailsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnails",
        abstract: "Pre-render renditions of the library's assets into its rendition cache.",
        discussion: """
            Renders every asset with an image (photos and videos, hidden ones included), newest first, at \
            each size, into the rendition cache in the library directory — where `photosync thumbnail` and \
            every image request of the library find them. Renditions already there are skipped, so a run \
            stopped (SIGINT, SIGTERM: it stops at once and exits 0) and started again resumes where it was, \
            and a second run renders nothing. Damaged or unreadable files are counted and skipped.

            The daemon (`photosync watch`) runs this itself after its scan and after each batch of new or \
            changed files, at low priority; `photosync status` shows the progress of the last run, whoever \
            ran it. One pre-render per library at a time: a second one fails naming the first one's pid.

            On a terminal a progress bar shows the assets done and the time left; otherwise a line is logged \
            every few seconds. --background lowers this process's CPU and I/O priority (nice 10), as the \
            daemon does.

            The rendition cache keeps within a budget (1 GiB unless set), evicting the least recently used \
            renditions past it; a pre-render stops before it would evict. --cache-budget sets the budget for \
            the library — stored with the cache, so the daemon, `serve` and apps all keep to it — evicts down \
            to it, then renders.

            Example: photosync thumbnails --sizes 256,1440
            """)

    @OptionGroup var options: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("The sizes: 256 (a square) or 640x480, comma-separated.", valueName: "sizes"))
    var sizes = ThumbnailSizeList(ImageManager.standardRenditionSizes)

    @OptionGroup var rendition: ThumbnailFormatOptions

    @Option(name: .long, help: ArgumentHelp("Only the assets added or whose content changed since this change token.", valueName: "token"))
    var since: String?

    @Option(name: .long, help: ArgumentHelp("Renders at once (default: the number of processors).", valueName: "n"))
    var jobs: Int?

    @Option(name: .customLong("cache-budget"), help: ArgumentHelp(
        "Set the library's rendition cache budget (bytes, or with K, M or G), kept by every process.", valueName: "size"))
    var cacheBudget: String?

    @Flag(name: .long, help: "Run at low CPU and I/O priority (nice 10), as the daemon does.")
    var background = false

    @Flag(name: .customLong(String(ParentLifeline.option.dropFirst(2))), help: .private)
    var stopWhenStdinCloses = false

    func validate() throws {
        if let jobs, !(1...64).contains(jobs) { throw ValidationError("--jobs must be between 1 and 64 (it was \(jobs))") }
        if let cacheBudget { try SizeArgument.validate(cacheBudget, option: "--cache-budget") }
    }

    func run() async throws {
        try await reportingFailures(options) { run in
            if background { PrerenderPriority.lower() }
            let library = try run.openExistingLibrary()
            let selection = try since.map { try PrerenderSelection.changed(since: TokenArgument.parse($0, option: "--since"), in: library) }
                ?? PrerenderSelection.all(in: library)
            let publisher = try PrerenderPublisher.acquire(libraryURL: library.url)
            let logger = CommandLogging.logger(label: "photosync.thumbnails", options: options)
            let reporter = ProgressReporter.forCommand(options, logger: logger)
            let prerender = PrerenderRun(
                library: library, selection: selection, sizes: sizes.sizes, contentMode: rendition.mode,
                format: rendition.outputFormat(), jobs: jobs ?? ProcessInfo.processInfo.activeProcessorCount,
                cacheBudget: cacheBudget.flatMap(SizeArgument.bytes))
            let outcome = Mutex<Result<Wire.Prerender, any Error>?>(nil)
            let service = MirrorService {
                if stopWhenStdinCloses { ParentLifeline.stopWhenStandardInputCloses() }
                do {
                    let state = try await prerender.run(publisher: publisher, reporter: reporter)
                    outcome.withLock { $0 = .success(state) }
                } catch {
                    outcome.withLock { $0 = .failure(error) }
                }
            }
            try await MirrorService.runUntilSignalled(service, logger: CommandLogging.lifecycleLogger(options: options))
            guard let state = try outcome.withLock({ $0 })?.get() else { return }
            if options.json {
                try Output.json(state)
            } else if !options.quiet {
                Output.line(state.summary)
                if let lastError = state.lastError, state.failed > 0 { Output.line("  last failure: \(lastError)") }
            }
        }
    }
}
