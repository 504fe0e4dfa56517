import ArgumentParser
import Logging
import SyncWorker

/// Options of the commands that mirror a folder (`scan`, `watch`).
struct MirrorOptions: ParsableArguments {
    @Flag(name: .customLong("allow-mass-deletion"), help: """
        Confirm a pass that deletes more than --max-deletion-share of the mirrored assets (by default such a \
        pass stops and deletes nothing).
        """)
    var allowMassDeletion = false

    @Option(name: .customLong("max-deletion-share"), help: ArgumentHelp(
        "The largest share of the mirrored assets one pass may delete without confirmation.", valueName: "0…1"))
    var maximumDeletionShare = 0.5

    @Flag(name: .customLong("accept-device-change"), help: """
        Confirm that the folder moved to another disk (by default a folder on another device than recorded \
        looks like an unmounted disk's mount point, and the pass deletes nothing).
        """)
    var acceptDeviceChange = false

    @Option(name: .customLong("open-file-settle"), help: ArgumentHelp(
        "Seconds of quiet after which a file some process still holds open for writing is read anyway.",
        valueName: "seconds"))
    var openFileSettle: Double = 30

    func validate() throws {
        guard (0...1).contains(maximumDeletionShare) else { throw ValidationError("--max-deletion-share must be between 0 and 1") }
        guard openFileSettle >= 0 && openFileSettle <= 86_400 else {
            throw ValidationError("--open-file-settle must be between 0 and 86400 seconds (a day)")
        }
    }

    func mirrorOptions(logger: Logger) -> FolderMirrorOptions {
        var options = FolderMirrorOptions(logger: logger)
        options.allowMassDeletion = allowMassDeletion
        options.maximumDeletionShare = maximumDeletionShare
        options.acceptRootDeviceChange = acceptDeviceChange
        options.openFileSettleInterval = .milliseconds(Int64(openFileSettle * 1000))
        return options
    }
}
