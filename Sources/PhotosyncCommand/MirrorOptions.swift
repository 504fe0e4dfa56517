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

    func validate() throws {
        guard (0...1).contains(maximumDeletionShare) else { throw ValidationError("--max-deletion-share must be between 0 and 1") }
    }

    func mirrorOptions(logger: Logger) -> FolderMirrorOptions {
        var options = FolderMirrorOptions(logger: logger)
        options.allowMassDeletion = allowMassDeletion
        options.maximumDeletionShare = maximumDeletionShare
        options.acceptRootDeviceChange = acceptDeviceChange
        return options
    }
}
