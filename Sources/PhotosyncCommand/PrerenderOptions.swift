import ArgumentParser
import Logging
import PhotoImaging
import PhotoLibrary

/// The daemon's pre-rendering options (`watch`).
struct PrerenderOptions: ParsableArguments {
    @Flag(name: .customLong("no-prerender"), help: "Don't pre-render renditions after scans and new files.")
    var noPrerender = false

    @Option(name: .customLong("prerender-sizes"), help: ArgumentHelp(
        "The sizes the daemon pre-renders (fit, jpeg at 85): 256 or 640x480, comma-separated.", valueName: "sizes"))
    var sizes = ThumbnailSizeList(ImageManager.standardRenditionSizes)

    /// The daemon's scheduler, or nil with `--no-prerender`.
    func scheduler(library: PhotoLibrary, location: LibraryLocation, logger: Logger) -> PrerenderScheduler? {
        noPrerender ? nil : PrerenderScheduler(library: library, location: location, settings: .init(sizes: sizes.sizes), logger: logger)
    }
}
