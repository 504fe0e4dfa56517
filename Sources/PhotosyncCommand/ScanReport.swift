import PhotosyncWire
import SyncWorker

/// The end-of-scan summary: JSON (``Wire/ScanSummary``), or text for people.
enum ScanReport {
    static func print(_ report: Wire.ScanSummary, summary: ScanSummary, options: GlobalOptions) throws {
        if options.json {
            try Output.json(report)
            return
        }
        guard !options.quiet else {
            if report.partial { Output.error("photosync: \(partialNote(report))") }
            return
        }
        Output.line("""
            \(report.root): \(report.inserted) inserted, \(report.updated) updated, \(report.moved) moved, \
            \(report.deleted) deleted, \(report.unchanged) unchanged, \(report.skipped.count) skipped \
            (\(Plural.count(report.filesHashed, "file")) hashed, \(ProgressReporter.bytes(Double(report.bytesHashed))), \
            \(String(format: "%.1f", report.seconds)) s)
            """)
        if summary.repaired > 0 {
            Output.line("  \(Plural.count(summary.repaired, "file")) repaired first: the library disagreed with the folder's records")
        }
        let skipped = summary.skipped.map { (path: $0.path, text: $0.reason) }.sorted { $0.path < $1.path }
        printCapped(skipped, verb: "skipped", verbose: options.verbose)
        let problems = summary.metadataProblems.map { (path: $0.key, text: "mirrored with what could be read; " + $0.value.joined(separator: "; ")) }
        if !problems.isEmpty {
            if options.verbose {
                printCapped(problems.sorted { $0.path < $1.path }, verb: "metadata of", verbose: true)
            } else {
                Output.line("  \(Plural.count(problems.count, "file")) mirrored with incomplete metadata (--verbose lists them)")
            }
        }
        if report.partial { Output.line("  \(partialNote(report))") }
        Output.line("change token: \(report.token ?? "-")")
    }

    /// The first ``Wire/ProblemList/shownCount`` lines, then how many more (all of them with `--verbose`).
    static func printCapped(_ items: [(path: String, text: String)], verb: String, verbose: Bool) {
        let shown = verbose ? items : Array(items.prefix(Wire.ProblemList.shownCount))
        for item in shown { Output.line("  \(verb) \(item.path): \(item.text)") }
        if shown.count < items.count {
            Output.line("  … and \(items.count - shown.count) more (--verbose lists them all)")
        }
    }

    static func partialNote(_ report: Wire.ScanSummary) -> String {
        let partial = report.skipped.byKind.filter { Wire.Problem.partialKinds.contains($0.key) }.values.reduce(0, +)
        return "\(Plural.count(partial, "file or directory", plural: "files or directories")) could not be read and \(partial == 1 ? "was" : "were") left as \(partial == 1 ? "it was" : "they were"); the next pass tries again (exit code 5)"
    }
}
