import ArgumentParser
import Foundation
import PhotoLibrary
import PhotosyncWire

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Copy the photos and videos of a folder into the library.",
        discussion: """
            Files are copied into the library's content-addressed originals store; a file whose content is \
            already in the library is skipped. Ends with a summary: files imported and skipped, and what the \
            library holds (--verbose lists every file).

            Example: photosync import ~/Pictures/Camera
            """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: ArgumentHelp("The folder to import.", valueName: "dir"))
    var directory: String

    func run() async throws {
        try await reportingFailures(options) { run in
            let root = try FolderArgument.resolve(directory)
            let library = try run.openOrCreateLibrary()
            let logger = CommandLogging.logger(label: "photosync.import", options: options)
            let summary = try Importer(library: library, root: root).run { logger.debug("importing \($0)") }
            let all = FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true)
            let report = Wire.ImportSummary(
                root: root.path, imported: summary.imported.count,
                skipped: Wire.ProblemList(summary.skipped.map { Wire.Problem(path: $0.key, kind: Wire.Problem.kind(ofSkipReason: $0.value), reason: $0.value) }),
                metadataProblems: Wire.ProblemList(summary.metadataProblems.flatMap { Wire.Problem.metadata(path: $0.key, problems: $0.value) }),
                assets: try library.fetchAssets(options: all).count, moments: try library.fetchMoments().count,
                token: try library.currentChangeToken.stringValue)
            if options.json {
                try Output.json(report)
            } else if !options.quiet {
                printText(report, summary: summary)
            }
        }
    }

    private func printText(_ report: Wire.ImportSummary, summary: Importer.Summary) {
        Output.line("""
            \(report.root): \(Plural.count(report.imported, "file")) imported, \(report.skipped.count) skipped; the \
            library now holds \(Plural.count(report.assets, "asset")) in \(Plural.count(report.moments, "moment"))
            """)
        if options.verbose {
            for path in summary.imported.sorted() { Output.line("  imported \(path)") }
        }
        ScanReport.printCapped(summary.skipped.map { ($0.key, $0.value) }.sorted { $0.0 < $1.0 }, verb: "skipped", verbose: options.verbose)
        if !summary.metadataProblems.isEmpty {
            Output.line("  \(Plural.count(summary.metadataProblems.count, "file")) imported with incomplete metadata (--verbose lists them)")
            if options.verbose {
                for (path, problems) in summary.metadataProblems.sorted(by: { $0.key < $1.key }) {
                    Output.line("  metadata of \(path): \(problems.joined(separator: "; "))")
                }
            }
        }
        Output.line("change token: \(report.token)")
    }
}
