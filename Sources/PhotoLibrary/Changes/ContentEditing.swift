public import Foundation
import Synchronization

/// How ``PhotoLibrary/requestContentEditingInput(for:options:)`` prepares an input.
public struct ContentEditingInputOptions: Sendable {
    /// Whether the app can apply the asset's existing adjustment data itself. When it can, the input shows
    /// the unadjusted original with that data (the app re-edits from scratch); when it can't (or for nil),
    /// the input shows the current rendered result and no data (the app edits on top of it).
    public var canHandleAdjustmentData: (@Sendable (AdjustmentData) -> Bool)?

    public init(canHandleAdjustmentData: (@Sendable (AdjustmentData) -> Bool)? = nil) {
        self.canHandleAdjustmentData = canHandleAdjustmentData
    }
}

/// What an app edits (PhotoKit's `PHContentEditingInput`).
public struct ContentEditingInput: Sendable {
    /// The asset edited.
    public let assetLocalIdentifier: String
    /// The asset's media type.
    public let mediaType: AssetMediaType
    /// The existing edit's data when the app said it can handle it, else nil.
    public let adjustmentData: AdjustmentData?
    /// The image to edit: the original (or, see ``ContentEditingInputOptions``, the current rendered result).
    /// Read it; never write it.
    public let fullSizeImageURL: URL
    /// The type identifier of ``fullSizeImageURL``.
    public let uniformTypeIdentifier: String?
    /// The content hash of ``fullSizeImageURL``: the base the new edit is made from.
    public let baseContentHash: String?
    /// The asset's creation date and location, for the app's information.
    public let creationDate: Date?
    public let location: Location?
}

/// An edit to commit (PhotoKit's `PHContentEditingOutput`): set ``adjustmentData``, write the rendered
/// result (JPEG, HEIC, PNG…, as the file name's extension says) to ``renderedContentURL``, then assign the
/// output to ``AssetChangeRequest/contentEditingOutput`` in a change block.
public final class ContentEditingOutput: Sendable {
    /// The input the output edits.
    public let input: ContentEditingInput
    /// Where the app writes the rendered result: a new file in the temporary directory. The library copies
    /// it when the change block commits; the caller may delete it afterwards.
    public let renderedContentURL: URL
    private let data = Mutex<AdjustmentData?>(nil)

    /// An output for `input`, rendering to a JPEG file (`renderedContentURL` ends in `.jpg`).
    public convenience init(contentEditingInput input: ContentEditingInput) {
        self.init(contentEditingInput: input, fileExtension: "jpg")
    }

    /// An output for `input`, rendering to a file of this extension (`jpg`, `heic`, `png`…).
    public init(contentEditingInput input: ContentEditingInput, fileExtension: String) {
        self.input = input
        renderedContentURL = FileManager.default.temporaryDirectory
            .appending(path: "photosync-edit-\(UUID().uuidString).\(fileExtension)")
    }

    /// The edit's description. Required: committing an output without it fails the block.
    public var adjustmentData: AdjustmentData? {
        get { data.withLock { $0 } }
        set { data.withLock { $0 = newValue } }
    }
}
