import Foundation
import PhotoLibrary

/// Change requests used where no change block can fail: the process must trap naming `notInChangeBlock`.
enum Misuse {
    /// A request creating an asset that references a file that needn't exist (its hash is given).
    static func makeAsset() -> AssetChangeRequest {
        AssetChangeRequest.creationRequestForAsset(
            fromFileAt: URL(fileURLWithPath: "/virtual/misuse.jpg"),
            options: AssetCreationOptions(storage: .referenced, contentHash: String(repeating: "ab", count: 16), fileSize: 1))
    }

    /// Starts a task inside a block; the task uses the block's request only once the block has returned.
    static func useFromATaskAfterTheBlock(_ library: PhotoLibrary) throws {
        let blockReturned = DispatchSemaphore(value: 0)
        let taskEnded = DispatchSemaphore(value: 0)
        try library.performChangesAndWait(author: "writer") {
            let request = makeAsset()
            Task {
                blockReturned.wait()
                request.isFavorite = true
                taskEnded.signal()
            }
        }
        blockReturned.signal()
        taskEnded.wait()
    }
}
